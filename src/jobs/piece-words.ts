// A piece's word timings as the database keeps them: compact JSON tuples [offset, length, start ms, end ms],
// where offset and length are the word's span in the piece's text and the times are in the piece's own audio.

export interface PieceWord {
  offset: number;
  length: number;
  /** Seconds from the start of the piece's audio. */
  start: number;
  end: number;
}

export function encodePieceWords(words: readonly PieceWord[]): string {
  return JSON.stringify(words.map((w) => [w.offset, w.length, Math.round(w.start * 1000), Math.round(w.end * 1000)]));
}

export function decodePieceWords(json: string | null): PieceWord[] {
  if (json === null) return [];
  const rows = JSON.parse(json) as [number, number, number, number][];
  return rows.map(([offset, length, start, end]) => ({ offset, length, start: start / 1000, end: end / 1000 }));
}
