/**
 * Characters of speech from which a request is a long reading. Such a request holds a worker thread for a
 * minute or more: its long sentences are rendered in clause pieces (text/clause-pieces.ts), and it keeps off
 * the thread left for everyone else (thread-balancer.ts). A request shorter than this is over soon and keeps
 * the engine's whole-sentence prosody.
 */
export const LONG_READING_CHARS = 1_000;

export function isLongReading(chars: number): boolean {
  return chars >= LONG_READING_CHARS;
}
