// Pronunciation lexicons: what an account may store (the rule checks every way in shares, JSON or PLS), and
// which rules a speech request gets (the lexicons it names, or the account default).
import { AppError } from '../errors.ts';
import { LEXICON_LIMITS, type Lexicon, type LexiconRule, type LexiconSummary } from '../schemas/lexicons.ts';
import type { LexiconEntry } from '../synth/text/lexicon.ts';
import { type LexiconStore } from './lexicon-store.ts';
import { PlsError } from './pls.ts';
import type { PlsReader } from './pls-reader.ts';

const collapse = (s: string): string => s.normalize('NFC').replace(/\s+/g, ' ').trim();

/** Two graphemes that match the same words (matching is case-insensitive) are the same rule. */
export function graphemeKey(grapheme: string): string {
  return collapse(grapheme).toLowerCase();
}

const clip = (s: string): string => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/**
 * The rules as stored: whitespace collapsed, each within the limits, each grapheme once. The JSON schema already
 * bounds what a JSON body holds; this also covers PLS imports and what collapsing changes.
 */
export function checkRules(rules: readonly LexiconRule[]): LexiconRule[] {
  if (rules.length > LEXICON_LIMITS.rulesPerLexicon) {
    throw new AppError('validation', `A lexicon holds at most ${LEXICON_LIMITS.rulesPerLexicon} rules; this one has ${rules.length}`);
  }
  const seen = new Set<string>();
  return rules.map((rule, i) => {
    const grapheme = collapse(rule.grapheme);
    const where = `rule ${i + 1} ("${clip(grapheme)}")`;
    if (!/[\p{L}\p{N}]/u.test(grapheme)) throw new AppError('validation', `${where}: a grapheme needs a letter or digit`);
    if (grapheme.length > LEXICON_LIMITS.graphemeChars)
      throw new AppError('validation', `${where}: a grapheme is at most ${LEXICON_LIMITS.graphemeChars} characters`);
    const key = graphemeKey(grapheme);
    if (seen.has(key)) throw new AppError('validation', `${where}: the grapheme appears twice (matching ignores case)`);
    seen.add(key);
    if ((rule.alias === undefined) === (rule.phoneme === undefined))
      throw new AppError('validation', `${where}: give either an alias or a phoneme`);
    if (rule.alias !== undefined) {
      if (rule.alphabet !== undefined) throw new AppError('validation', `${where}: an alphabet goes with a phoneme, not an alias`);
      const alias = collapse(rule.alias);
      if (alias === '' || alias.length > LEXICON_LIMITS.aliasChars)
        throw new AppError('validation', `${where}: an alias is 1 to ${LEXICON_LIMITS.aliasChars} characters`);
      return { grapheme, alias };
    }
    const phoneme = (rule.phoneme ?? '').trim();
    if (phoneme === '' || phoneme.length > LEXICON_LIMITS.phonemeChars)
      throw new AppError('validation', `${where}: a phoneme is 1 to ${LEXICON_LIMITS.phonemeChars} characters`);
    return { grapheme, phoneme, ...(rule.alphabet && rule.alphabet !== 'ipa' ? { alphabet: rule.alphabet } : {}) };
  });
}

/** A rule as the worker takes it (SpeechRequest.lexicon). */
function toEntry(rule: LexiconRule): LexiconEntry {
  if (rule.alias !== undefined) return { grapheme: rule.grapheme, alias: rule.alias };
  return { grapheme: rule.grapheme, phoneme: rule.phoneme, ...(rule.alphabet ? { alphabet: rule.alphabet } : {}) };
}

function notFound(name: string): never {
  throw new AppError('lexicon_not_found', `No lexicon "${name}"`);
}

export class LexiconService {
  constructor(
    private readonly store: LexiconStore,
    /** Reads PLS documents off the event loop. */
    private readonly pls: PlsReader,
  ) {}

  list(userId: string): Promise<LexiconSummary[]> {
    return this.store.list(userId);
  }

  async get(userId: string, name: string): Promise<Lexicon> {
    return (await this.store.get(userId, name)) ?? notFound(name);
  }

  async create(userId: string, name: string, rules: readonly LexiconRule[], makeDefault?: boolean): Promise<Lexicon> {
    const result = await this.store.put(userId, name, checkRules(rules), { mode: 'create', makeDefault });
    return result?.lexicon ?? notFound(name);
  }

  async replace(userId: string, name: string, rules: readonly LexiconRule[], makeDefault?: boolean): Promise<Lexicon> {
    const result = await this.store.put(userId, name, checkRules(rules), { mode: 'replace', makeDefault });
    return result?.lexicon ?? notFound(name);
  }

  async update(userId: string, name: string, change: { name?: string; default?: boolean }): Promise<Lexicon> {
    return (await this.store.update(userId, name, change)) ?? notFound(name);
  }

  async delete(userId: string, name: string): Promise<void> {
    if (!(await this.store.delete(userId, name))) notFound(name);
  }

  /** Creates or replaces the lexicon `name` from a W3C PLS document. */
  async importPls(userId: string, name: string, xml: string, makeDefault?: boolean): Promise<{ lexicon: Lexicon; created: boolean }> {
    let rules: LexiconRule[];
    try {
      rules = await this.pls.read(xml);
    } catch (err) {
      if (err instanceof PlsError) throw new AppError('invalid_pls', err.message);
      throw err;
    }
    const result = await this.store.put(userId, name, checkRules(rules), { mode: 'upsert', makeDefault });
    return result ?? notFound(name);
  }

  /**
   * The rules a speech request of `userId` gets: those of the lexicons it names, in that order (so an earlier
   * lexicon wins a grapheme both define), or the account default when it names none. Another account's lexicon
   * is not found, exactly like one that does not exist. Undefined when there is nothing to apply.
   */
  async rulesFor(userId: string, names: readonly string[] | undefined): Promise<LexiconEntry[] | undefined> {
    let lexicons: Lexicon[];
    if (names === undefined) {
      const fallback = await this.store.getDefault(userId);
      lexicons = fallback ? [fallback] : [];
    } else {
      const unique = [...new Set(names)];
      if (unique.length > LEXICON_LIMITS.lexiconsPerRequest)
        throw new AppError('validation', `A request names at most ${LEXICON_LIMITS.lexiconsPerRequest} lexicons`);
      const found = await this.store.getMany(userId, unique);
      const byName = new Map(found.map((l) => [l.name, l]));
      const missing = unique.filter((n) => !byName.has(n));
      if (missing.length > 0) {
        throw new AppError(
          'lexicon_not_found',
          `No lexicon ${missing.map((n) => JSON.stringify(n.slice(0, LEXICON_LIMITS.nameChars))).join(', ')}`,
        );
      }
      lexicons = unique.map((n) => byName.get(n) as Lexicon);
    }
    const seen = new Set<string>();
    const entries: LexiconEntry[] = [];
    for (const rule of lexicons.flatMap((l) => l.rules)) {
      const key = graphemeKey(rule.grapheme);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push(toEntry(rule));
    }
    return entries.length > 0 ? entries : undefined;
  }
}
