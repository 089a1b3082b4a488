/**
 * Characters of speech from which a request is a long reading. Such a request holds a worker thread for a
 * minute or more: its long sentences are rendered in clause pieces while others on its thread wait for audio
 * (pipeline.ts), and short requests go to the threads where the fewest long readings run (thread-balancer.ts).
 * A request shorter than this is over soon and keeps the engine's whole-sentence prosody.
 */
export const LONG_READING_CHARS = 1_000;

export function isLongReading(chars: number): boolean {
  return chars >= LONG_READING_CHARS;
}
