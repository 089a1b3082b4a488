import { BUILTIN_VOICES, DEFAULT_VOICE_ALIAS, DEFAULT_VOICE_ID } from './builtin.ts';
import { filterVoices, type VoiceFilter } from './filter.ts';
import { createVoiceSearch, type VoiceSearch } from './search.ts';
import type { Voice } from './voice.ts';

/** Where users' own voices (clones, bred voices) live; the forge provides the database-backed one. */
export interface OwnedVoiceStore {
  listByOwner(ownerId: string): Promise<Voice[]>;
  /** The voice with this id if `ownerId` owns it. */
  getOwned(id: string, ownerId: string): Promise<Voice | null>;
}

/**
 * Every voice a caller can use: the built-in catalog for everyone, plus their own voices. Other users'
 * voices are never listed, found or resolved (they answer as unknown).
 */
export class VoiceLibrary {
  private searchIndex: VoiceSearch | undefined;
  /** The catalog by id: the built-in voices plus the neural ones found in VOICES_DIR. */
  private readonly byId: ReadonlyMap<string, Voice>;

  constructor(
    private readonly owned: OwnedVoiceStore | null,
    private readonly builtins: readonly Voice[] = BUILTIN_VOICES,
  ) {
    this.byId = new Map(builtins.map((v) => [v.id, v]));
  }

  /**
   * The search index, built on first use (~0.2 s for the whole catalog): not on the way to ready. The app
   * builds it as soon as it listens (prepareSearch), so a first search rarely waits for it.
   */
  private get index(): VoiceSearch {
    this.searchIndex ??= createVoiceSearch(this.builtins);
    return this.searchIndex;
  }

  prepareSearch(): void {
    void this.index;
  }

  /** A catalog (non-owned) voice by id. */
  catalogVoice(id: string): Voice | undefined {
    return this.byId.get(id);
  }

  /** A neural English catalog voice of the same gender as catalog voice `id` (Kokoro first), if VOICES_DIR has one. */
  neuralStandIn(id: string): Voice | undefined {
    const gender = this.byId.get(id)?.gender;
    const english = this.builtins.filter((v) => (v.engine === 'kokoro' || v.engine === 'piper') && v.language.toLowerCase().startsWith('en'));
    english.sort((a, b) => Number(b.engine === 'kokoro') - Number(a.engine === 'kokoro'));
    return english.find((v) => v.gender === gender) ?? english[0];
  }

  private async ownedBy(viewer: string | null): Promise<Voice[]> {
    return viewer && this.owned ? this.owned.listByOwner(viewer) : [];
  }

  async list(filter: VoiceFilter, viewer: string | null): Promise<Voice[]> {
    return filterVoices([...(await this.ownedBy(viewer)), ...this.builtins], filter);
  }

  async search(q: string, viewer: string | null, limit?: number): Promise<Voice[]> {
    // Owned voices are (re)indexed on demand: another node may have created or deleted them, so the
    // database list decides visibility and stale index entries stay hidden.
    const mine = await this.ownedBy(viewer);
    for (const v of mine) this.index.add(v);
    const visibleOwned = new Set(mine.map((v) => v.id));
    return this.index.search(q, (v) => v.source === 'builtin' || visibleOwned.has(v.id), limit);
  }

  /** `default`, a built-in id, or one of the viewer's own voices; null for anything else. */
  async resolve(id: string, viewer: string | null): Promise<Voice | null> {
    const builtin = this.byId.get(id === DEFAULT_VOICE_ALIAS ? DEFAULT_VOICE_ID : id);
    if (builtin) return builtin;
    return viewer && this.owned ? this.owned.getOwned(id, viewer) : null;
  }

  forget(id: string): void {
    this.index.remove(id);
  }
}
