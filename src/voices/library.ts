import { BUILTIN_VOICES, DEFAULT_VOICE_ALIAS, DEFAULT_VOICE_ID } from './builtin.ts';
import { filterVoices, type VoiceFilter } from './filter.ts';
import { bestNaturalEnglish, byQuality, isNatural } from './natural-rank.ts';
import { DEFAULT_LANGUAGES, orderVoices } from './order.ts';
import { createVoiceSearch, type VoiceSearch } from './search.ts';
import type { Gender, Voice } from './voice.ts';

/** Where users' own voices (clones, bred voices) live; the forge provides the database-backed one. */
export interface OwnedVoiceStore {
  listByOwner(ownerId: string): Promise<Voice[]>;
  /** The voice with this id if `ownerId` owns it. */
  getOwned(id: string, ownerId: string): Promise<Voice | null>;
}

export interface LibraryOptions {
  /** DEFAULT_VOICE: the voice `default` stands for, when it is installed. */
  defaultVoice?: string | null;
}

export interface ListOptions {
  /** The caller's languages, most wanted first (Accept-Language); their voices come first. */
  languages?: readonly string[];
}

/**
 * Every voice a caller can use: the built-in catalog for everyone (the engines' voices plus the natural ones in
 * VOICES_DIR, which change while the service runs), plus their own voices. Other users' voices are never
 * listed, found or resolved (they answer as unknown).
 */
export class VoiceLibrary {
  private searchIndex: VoiceSearch | undefined;
  /** The natural voices VOICES_DIR holds now. */
  private natural: readonly Voice[] = [];
  /** The catalog by id: the built-in voices plus the natural ones. */
  private byId: ReadonlyMap<string, Voice>;
  private catalog: readonly Voice[];
  /** The catalog in listing order, per list of preferred languages (a list request sorts nothing). */
  private readonly ordered = new Map<string, Voice[]>();

  constructor(
    private readonly owned: OwnedVoiceStore | null,
    private readonly builtins: readonly Voice[] = BUILTIN_VOICES,
    private readonly options: LibraryOptions = {},
  ) {
    this.catalog = builtins;
    this.byId = new Map(builtins.map((v) => [v.id, v]));
  }

  /**
   * The search index, built on first use (~0.2 s for the whole catalog): not on the way to ready. The app
   * builds it as soon as it listens (prepareSearch), so a first search rarely waits for it.
   */
  private get index(): VoiceSearch {
    this.searchIndex ??= createVoiceSearch(this.catalog);
    return this.searchIndex;
  }

  prepareSearch(): void {
    void this.index;
  }

  /** Makes these the natural voices (VOICES_DIR changed): every door lists, finds and speaks them from now on. */
  setNaturalVoices(voices: readonly Voice[]): void {
    const before = this.natural;
    const builtinIds = new Set(this.builtins.map((v) => v.id));
    this.natural = voices.filter((v) => !builtinIds.has(v.id));
    this.catalog = [...this.natural, ...this.builtins];
    this.byId = new Map(this.catalog.map((v) => [v.id, v]));
    this.ordered.clear();
    if (this.searchIndex) {
      const now = new Set(this.natural.map((v) => v.id));
      for (const v of before) if (!now.has(v.id)) this.searchIndex.remove(v.id);
      for (const v of this.natural) this.searchIndex.add(v);
    }
  }

  naturalVoices(): readonly Voice[] {
    return this.natural;
  }

  /** A catalog (non-owned) voice by id. */
  catalogVoice(id: string): Voice | undefined {
    return this.byId.get(id);
  }

  /**
   * What `default` stands for: DEFAULT_VOICE when it names an installed catalog voice, else the best natural
   * English voice installed, else the built-in default (flite's slt).
   */
  defaultVoice(): Voice {
    const configured = this.options.defaultVoice ? this.byId.get(this.options.defaultVoice) : undefined;
    return configured ?? bestNaturalEnglish(this.natural) ?? (this.byId.get(DEFAULT_VOICE_ID) as Voice);
  }

  /** The natural English voices of this gender, best first (of any gender, when none has it); empty when none is installed. */
  naturalStandIns(gender: Gender): Voice[] {
    const english = byQuality(this.natural.filter((v) => /^en(-|$)/i.test(v.language)));
    const same = english.filter((v) => v.gender === gender);
    return same.length > 0 ? same : english;
  }

  private async ownedBy(viewer: string | null): Promise<Voice[]> {
    return viewer && this.owned ? this.owned.listByOwner(viewer) : [];
  }

  /** The voices matching `filter`, in listing order (order.ts): own voices, then natural ones in the caller's languages... */
  async list(filter: VoiceFilter, viewer: string | null, options: ListOptions = {}): Promise<Voice[]> {
    const languages = options.languages ?? DEFAULT_LANGUAGES;
    const key = languages.join(',');
    let catalog = this.ordered.get(key);
    if (!catalog) {
      catalog = orderVoices(this.catalog, languages);
      if (this.ordered.size >= 64) this.ordered.clear();
      this.ordered.set(key, catalog);
    }
    return filterVoices([...(await this.ownedBy(viewer)), ...catalog], filter);
  }

  async search(q: string, viewer: string | null, limit?: number): Promise<Voice[]> {
    // Owned voices are (re)indexed on demand: another node may have created or deleted them, so the
    // database list decides visibility and stale index entries stay hidden.
    const mine = await this.ownedBy(viewer);
    for (const v of mine) this.index.add(v);
    const visibleOwned = new Set(mine.map((v) => v.id));
    const catalogIds = this.byId;
    return this.index.search(q, (v) => (v.source === 'builtin' ? catalogIds.get(v.id) === v : visibleOwned.has(v.id)), limit);
  }

  /** `default`, a catalog id, or one of the viewer's own voices; null for anything else. */
  async resolve(id: string, viewer: string | null): Promise<Voice | null> {
    if (id === DEFAULT_VOICE_ALIAS) return this.defaultVoice();
    const builtin = this.byId.get(id);
    if (builtin) return builtin;
    return viewer && this.owned ? this.owned.getOwned(id, viewer) : null;
  }

  forget(id: string): void {
    this.index.remove(id);
  }

  /** How many natural voices are installed, by engine (the start-up banner). */
  naturalCount(): number {
    return this.catalog.filter(isNatural).length;
  }
}
