import type { EngineWord } from '../engine.ts';

/**
 * Word start times for a neural model that reports no durations: each word starts where its first phoneme
 * sits among the ids, scaled to the audio's length (an estimate; speech time follows phoneme count closely
 * enough for captions). When espeak's words do not pair one to one with the text's, the sentence is one word.
 */
export function estimateWordTimes(text: string, phonemeWordStarts: readonly number[], totalIds: number, seconds: number): EngineWord[] {
  const words = [...text.matchAll(/\S+/g)];
  if (words.length === 0) return [];
  if (words.length !== phonemeWordStarts.length || totalIds <= 0) {
    const first = words[0].index ?? 0;
    return [{ text: text.slice(first).trimEnd(), offset: first, length: text.trimEnd().length - first, time: 0 }];
  }
  return words.map((m, i) => ({
    text: m[0],
    offset: m.index ?? 0,
    length: m[0].length,
    time: (phonemeWordStarts[i] / totalIds) * seconds,
  }));
}
