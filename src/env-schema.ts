import { KindGuard, type StaticDecode, type TObject, type TSchema } from '@sinclair/typebox';
import { TransformDecodeError, Value } from '@sinclair/typebox/value';

/** A setting the environment gives wrongly; the message names the variable. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** The variable a schema leaf is read from (its `env` option), if it is one. */
function variable(schema: TSchema): string | undefined {
  const name: unknown = schema.env;
  return typeof name === 'string' ? name : undefined;
}

/** What a value of this schema looks like, for messages: its `expects` option, else said from its kind. */
function expected(schema: TSchema): string {
  const given: unknown = schema.expects;
  if (typeof given === 'string') return given;
  if (KindGuard.IsInteger(schema)) return 'a whole number';
  if (KindGuard.IsNumber(schema)) return 'a number';
  if (KindGuard.IsUnion(schema) && schema.anyOf.every(KindGuard.IsLiteral))
    return `one of ${schema.anyOf.map((l) => String(l.const)).join(', ')}`;
  if (KindGuard.IsUnion(schema))
    return schema.anyOf
      .filter((m) => !KindGuard.IsNull(m))
      .map(expected)
      .join(' or ');
  if (KindGuard.IsLiteral(schema)) return String(schema.const);
  return 'text';
}

const WHOLE = /^\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The text of a variable as a value of `schema`'s encoded type, and the schema (a union's member) it is one of;
 * undefined when the text is none of them.
 */
function fromText(schema: TSchema, text: string): { schema: TSchema; value: unknown } | undefined {
  if (KindGuard.IsUnion(schema)) {
    for (const member of schema.anyOf) {
      const read = fromText(member, text);
      if (read) return read;
    }
    return undefined;
  }
  if (KindGuard.IsLiteral(schema)) return text === schema.const ? { schema, value: text } : undefined;
  if (KindGuard.IsInteger(schema)) return WHOLE.test(text) ? { schema, value: Number(text) } : undefined;
  if (KindGuard.IsNumber(schema)) return DECIMAL.test(text) ? { schema, value: Number(text) } : undefined;
  if (KindGuard.IsBoolean(schema)) return text === 'true' || text === 'false' ? { schema, value: text === 'true' } : undefined;
  if (KindGuard.IsArray(schema)) {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return { schema, value: items };
  }
  if (KindGuard.IsString(schema)) return { schema, value: text };
  return undefined;
}

/** One variable's encoded value: its default when unset or blank, else its text read and checked. */
function readVariable(name: string, schema: TSchema, env: Env): unknown {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return Value.Clone(schema.default);
  const read = fromText(schema, text);
  if (!read) throw new ConfigError(`${name} must be ${expected(schema)}, got "${text}"`);
  const error = Value.Errors(read.schema, read.value).First();
  if (error === undefined) return read.value;
  const bounds = error.schema;
  if (typeof read.value === 'number' && typeof bounds.minimum === 'number' && typeof bounds.maximum === 'number')
    throw new ConfigError(`${name} must be between ${bounds.minimum} and ${bounds.maximum}, got ${read.value}`);
  const item = Array.isArray(read.value) ? `"${String(error.value)}"` : `"${text}"`;
  throw new ConfigError(`${name} must be ${expected(schema)}, got ${item}`);
}

/** The object of every variable an object schema (nested ones included) reads, still encoded. */
function readObject(schema: TObject, env: Env): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    const name = variable(property);
    if (name !== undefined) out[key] = readVariable(name, property, env);
    else if (KindGuard.IsObject(property)) out[key] = readObject(property, env);
    else throw new Error(`config schema: ${key} names no variable`);
  }
  return out;
}

/**
 * Reads every variable `schema` declares from `env` and decodes them into the schema's own types; a value that is
 * not what its variable takes throws a ConfigError naming it.
 */
export function readEnv<T extends TObject>(schema: T, env: Env): StaticDecode<T> {
  const encoded = readObject(schema, env);
  try {
    return Value.Decode(schema, encoded);
  } catch (err) {
    // A variable's own decoding (a URL, an origin) throws a ConfigError that names it.
    if (err instanceof TransformDecodeError && err.error instanceof ConfigError) throw err.error;
    throw err;
  }
}

/** Every variable an object schema reads, nested objects included, in declaration order. */
export function variablesOf(schema: TObject): string[] {
  return Object.values(schema.properties).flatMap((property: TSchema) => {
    const name = variable(property);
    if (name !== undefined) return [name];
    return KindGuard.IsObject(property) ? variablesOf(property) : [];
  });
}

/** The default a variable takes when unset (undefined for one the schema does not declare). */
export function defaultOf(schema: TObject, name: string): unknown {
  for (const property of Object.values(schema.properties) as TSchema[]) {
    if (variable(property) === name) return property.default as unknown;
    if (KindGuard.IsObject(property)) {
      const found = defaultOf(property, name);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
