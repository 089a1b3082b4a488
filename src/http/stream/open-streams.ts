import type { SharedEvent } from '../../store/shared-state/shared-state.ts';

export interface ClosableStream {
  keyId: string | null;
  sessionIdHash: string | null;
  close(code: number, reason: string): void;
  /** Asks the database whether the credential still holds (after events may have been missed). */
  recheck(): void;
}

/**
 * Open WebSocket streams by credential, so a key revoked or a session ended anywhere (the shared-state
 * broadcast reaches every node) closes the streams it opened here at once.
 */
export class OpenStreams {
  private readonly streams = new Set<ClosableStream>();

  get size(): number {
    return this.streams.size;
  }

  add(stream: ClosableStream): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  onEvent(event: SharedEvent): void {
    for (const s of this.streams) {
      if (event.type === 'resync') s.recheck();
      if (event.type === 'key-revoked' && s.keyId === event.keyId) s.close(1008, 'API key revoked');
      if (event.type === 'session-ended' && s.sessionIdHash === event.idHash) s.close(1008, 'session ended');
    }
  }

  closeAll(code: number, reason: string): void {
    for (const s of this.streams) s.close(code, reason);
  }
}
