// Schema failures in words a client can act on: which values a field takes, which field a misspelt one meant.
import type { FastifyError } from 'fastify';

/** What Fastify's Ajv (with `verbose`) attaches to each failure. */
interface Failure {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
  schema?: unknown;
  parentSchema?: unknown;
  data?: unknown;
}

/** Fields other APIs name differently, mapped onto ours when the schema has them. */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map([
  ['input', ['text']],
  ['text', ['input']],
  ['voice', ['voice_id']],
  ['responseformat', ['format']],
  ['outputformat', ['format', 'response_format']],
  ['format', ['response_format']],
  ['rate', ['sample_rate']],
]);

const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The accepted field an unknown one most likely meant: a synonym, the same name in another case style, a prefix, or a typo. */
export function closestField(unknown: string, known: readonly string[]): string | undefined {
  const u = squash(unknown);
  const synonym = SYNONYMS.get(u)?.find((s) => known.includes(s));
  if (synonym) return synonym;
  const same = known.find((k) => squash(k) === u);
  if (same) return same;
  const prefix = known.find((k) => u.length >= 3 && (squash(k).startsWith(u) || u.startsWith(squash(k))));
  if (prefix) return prefix;
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(u, squash(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** The literals a `Type.Union` of `Type.Literal`s allows (its anyOf branches), or undefined for any other schema. */
function literals(schema: unknown): unknown[] | undefined {
  if (!Array.isArray(schema) || schema.length === 0) return undefined;
  const values: unknown[] = [];
  for (const branch of schema as unknown[]) {
    if (typeof branch !== 'object' || branch === null || !Object.hasOwn(branch, 'const')) return undefined;
    values.push((branch as { const: unknown }).const);
  }
  return values;
}

function propertiesOf(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

/** The message of a 400 `validation` error: where, what, and what would have been accepted. */
export function describeValidation(error: FastifyError): string {
  const failures = (error.validation ?? []) as Failure[];
  const first = failures[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'request';
  const path = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '';
  const at = path ? `${where}.${path}` : where;
  if (first.keyword === 'additionalProperties') {
    const name = String(first.params?.additionalProperty ?? '').slice(0, 60);
    const known = propertiesOf(first.parentSchema);
    const hint = closestField(name, known);
    const fields = known.length > 0 ? ` (fields: ${known.join(', ')})` : '';
    return `${at} has an unknown field ${JSON.stringify(name)}${hint ? `; did you mean ${hint}?` : ''}${fields}`;
  }
  // A union of literals fails once per branch and then as a whole: name the values it takes.
  const union = failures.find((f) => f.keyword === 'anyOf' && f.instancePath === first.instancePath);
  const allowed = literals(union?.schema);
  if (allowed) return `${at} must be one of: ${allowed.map((v) => String(v)).join(', ')}`;
  const missing = first.params?.missingProperty;
  if (typeof missing === 'string') {
    // A required field is often there under another API's name ({"input": ...} for text): say which.
    const data = first.data;
    const known = propertiesOf(first.parentSchema);
    const stranger =
      typeof data === 'object' && data !== null && known.length > 0
        ? Object.keys(data).find((k) => !known.includes(k) && closestField(k, known) === missing)
        : undefined;
    const hint = stranger === undefined ? '' : `; got an unknown field ${JSON.stringify(stranger.slice(0, 60))}; did you mean ${missing}?`;
    return `${at}.${missing} is required${hint}`;
  }
  return `${at} ${first.message ?? 'is invalid'}`;
}
