// Where each chapter starts in the whole book's audio, and which stored bytes make up the book file.
//
// MP3: the book is the chapters' own frames back to back, with frames of encoded silence between them, under
// one ID3 tag (with the chapter frames) and one Info frame for the whole. Each chapter was encoded as a stream
// of its own, so its first frame borrows nothing from the frame before it (the bit reservoir starts empty) and
// the joined stream decodes without a seam; each stream's encoder delay and padding is silence inside the pause.
// A decoder that honours the Info frame drops the first encoder delay (and its own), so chapter k's first sample
// plays at exactly (frames before it) x 576 samples. Every other format is encoded whole, in one stream.
import { CHAPTER_PAUSE_SECONDS } from '../schemas/jobs.ts';
import { STREAM_SAMPLE_RATE, type SpeechFormat } from '../schemas/speech.ts';
import { LAME_ENCODER_DELAY } from '../audio/encoders/mp3-info-tag.ts';
import { chapterPart, type ChapterRow } from './job-store.ts';

/** Samples of one MPEG-2 Layer III frame (24 kHz). */
const MP3_FRAME_SAMPLES = 576;

export interface BookLayout {
  /** Start of each chapter in the book, in seconds. */
  starts: number[];
  seconds: number;
  /** MP3 only: frames after the Info frame, and the padding at the very end. */
  mp3Frames: number;
  mp3Padding: number;
}

export function layoutBook(format: SpeechFormat, chapters: readonly ChapterRow[], gap: { mp3Frames: number } | null): BookLayout {
  const rate = STREAM_SAMPLE_RATE;
  const starts: number[] = [];
  const samples = chapters.map((c) => Number(c.samples ?? 0));
  if (format === 'mp3') {
    const gapFrames = gap?.mp3Frames ?? 0;
    let frames = 0;
    for (const [i, c] of chapters.entries()) {
      starts.push((frames * MP3_FRAME_SAMPLES) / rate);
      frames += (c.mp3_frames ?? 0) + (i < chapters.length - 1 ? gapFrames : 0);
    }
    const last = chapters.length - 1;
    const lastFrames = chapters[last]?.mp3_frames ?? 0;
    const padding = Math.max(0, lastFrames * MP3_FRAME_SAMPLES - LAME_ENCODER_DELAY - (samples[last] ?? 0));
    return { starts, seconds: round((starts[last] ?? 0) + (samples[last] ?? 0) / rate), mp3Frames: frames, mp3Padding: padding };
  }
  const gapSamples = Math.round(CHAPTER_PAUSE_SECONDS * rate);
  let at = 0;
  for (const s of samples) {
    starts.push(at / rate);
    at += s + gapSamples;
  }
  return { starts: starts.map(round), seconds: round((at - (samples.length > 0 ? gapSamples : 0)) / rate), mp3Frames: 0, mp3Padding: 0 };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** A stretch of stored bytes: [from, to) of one part's kept attempt. */
export interface Segment {
  part: string;
  attempt: string;
  from: number;
  to: number;
}

/**
 * The MP3 book's audio after its head (ID3 tag and Info frame): each chapter without its own Info frame, and the
 * gap between chapters. `bookAttempt` names the stored gap ('' while it is being assembled: only the lengths count).
 */
export function mp3BookSegments(chapters: readonly ChapterRow[], gapBytes: number, bookAttempt = ''): Segment[] {
  const out: Segment[] = [];
  for (const [i, c] of chapters.entries()) {
    out.push({ part: chapterPart(c.n), attempt: c.audio_attempt ?? '', from: c.audio_head ?? 0, to: Number(c.audio_bytes ?? 0) });
    if (i < chapters.length - 1) out.push({ part: 'gap', attempt: bookAttempt, from: 0, to: gapBytes });
  }
  return out;
}
