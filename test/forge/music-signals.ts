// Music-like and sung signals, synthesized: what a clone sample must not be. Deterministic (a seeded noise source).

export const MUSIC_RATE = 16000;

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 31 - 1;
  };
}

const midiHz = (note: number): number => 440 * 2 ** ((note - 69) / 12);

function normalize(x: Float32Array, peak = 0.7): Float32Array {
  let max = 0;
  for (const v of x) max = Math.max(max, Math.abs(v));
  if (max > 0) for (let i = 0; i < x.length; i++) x[i] *= peak / max;
  return x;
}

/** Adds `voice(t)` for t from `at` seconds on, for `seconds`. */
function place(out: Float32Array, at: number, seconds: number, voice: (t: number) => number): void {
  const from = Math.round(at * MUSIC_RATE);
  const n = Math.min(out.length - from, Math.round(seconds * MUSIC_RATE));
  for (let i = 0; i < n; i++) out[from + i] += voice(i / MUSIC_RATE);
}

/** A drum loop at `bpm`: kicks (a falling sine) on beats 1 and 3, snares (noise and a tone) on 2 and 4, closed hi-hats on eighths. */
export function drumLoop(seconds = 6, bpm = 110): Float32Array {
  const out = new Float32Array(Math.round(seconds * MUSIC_RATE));
  const noise = seeded(42);
  const beat = 60 / bpm;
  for (let b = 0; b * beat < seconds; b++) {
    const at = b * beat;
    if (b % 2 === 0) {
      let phase = 0;
      place(out, at, 0.4, (t) => {
        phase += (50 + 100 * Math.exp(-t / 0.03)) / MUSIC_RATE;
        return Math.exp(-t / 0.12) * Math.sin(2 * Math.PI * phase);
      });
    } else {
      place(out, at, 0.3, (t) => Math.exp(-t / 0.08) * (0.6 * noise() + 0.4 * Math.sin(2 * Math.PI * 190 * t)));
    }
    for (const eighth of [0, 0.5]) {
      let last = 0;
      place(out, at + eighth * beat, 0.06, (t) => {
        const n = noise();
        const hp = n - last; // a first difference: the hiss of a hat, not a thump
        last = n;
        return 0.25 * Math.exp(-t / 0.015) * hp;
      });
    }
  }
  return normalize(out);
}

/** A tone of a few decaying harmonics, as a plucked or struck string. */
function struck(hz: number, decay: number): (t: number) => number {
  return (t) => {
    let v = 0;
    for (let k = 1; k <= 6; k++) v += (Math.exp((-t * (1 + 0.6 * k)) / decay) / k) * Math.sin(2 * Math.PI * hz * k * t);
    return v;
  };
}

/** A piano-like arpeggio: up and down a chord, a note every `step` seconds, each ringing on under the next. */
export function pianoArpeggio(seconds = 6, step = 0.25): Float32Array {
  const out = new Float32Array(Math.round(seconds * MUSIC_RATE));
  const chords = [
    [60, 64, 67, 72],
    [57, 60, 64, 69],
    [53, 57, 60, 65],
    [55, 59, 62, 67],
  ];
  for (let i = 0; i * step < seconds; i++) {
    const chord = chords[Math.floor(i / 8) % chords.length];
    const order = [0, 1, 2, 3, 2, 1, 0, 1];
    place(out, i * step, 1.2, struck(midiHz(chord[order[i % 8]]), 0.8));
  }
  return normalize(out);
}

/** A band mix: a lead line of plucked eighth notes over sustained chords and the drum loop. */
export function bandMix(seconds = 6): Float32Array {
  const out = new Float32Array(Math.round(seconds * MUSIC_RATE));
  const chords = [
    [48, 60, 64, 67],
    [53, 57, 60, 65],
    [55, 59, 62, 67],
    [57, 60, 64, 69],
  ];
  const bar = (60 / 110) * 4;
  for (let c = 0; c * bar < seconds; c++) {
    for (const note of chords[c % chords.length]) {
      const hz = midiHz(note);
      place(out, c * bar, bar, (t) => {
        let v = 0;
        for (let k = 1; k <= 5; k++) v += Math.sin(2 * Math.PI * hz * k * t) / k;
        return 0.25 * Math.min(1, t / 0.02) * Math.min(1, (bar - t) / 0.05) * v;
      });
    }
  }
  const lead = [72, 74, 76, 79, 76, 74, 72, 71, 69, 71, 72, 76];
  const eighth = 60 / 110 / 2;
  for (let i = 0; i * eighth < seconds; i++) place(out, i * eighth, 0.5, (t) => 1.5 * struck(midiHz(lead[i % lead.length]), 0.3)(t));
  const drums = drumLoop(seconds);
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * out[i] + 0.5 * drums[i];
  return normalize(out);
}

/** Two-pole resonator (a formant) run over x in place. */
function resonate(x: Float64Array, hz: number, bandwidth: number): void {
  const r = Math.exp((-Math.PI * bandwidth) / MUSIC_RATE);
  const a1 = 2 * r * Math.cos((2 * Math.PI * hz) / MUSIC_RATE);
  const a2 = -r * r;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const y = (1 - r) * x[i] + a1 * y1 + a2 * y2;
    y2 = y1;
    y1 = y;
    x[i] = y;
  }
}

/**
 * A sung melody: a vowel ("ah": formants at 730, 1090 and 2440 Hz) from a glottal pulse train held at each note's
 * pitch with a 5.5 Hz vibrato of ±0.4 semitones, notes of `noteSeconds` joined by short breaths.
 */
export function sungMelody(seconds = 6, noteSeconds = 0.6): Float32Array {
  const melody = [57, 59, 60, 62, 64, 62, 60, 59, 57, 64, 62, 60];
  const n = Math.round(seconds * MUSIC_RATE);
  const source = new Float64Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / MUSIC_RATE;
    const note = Math.floor(t / noteSeconds);
    const within = t - note * noteSeconds;
    const hz = midiHz(melody[note % melody.length]) * 2 ** ((0.4 * Math.sin(2 * Math.PI * 5.5 * t)) / 12);
    phase += hz / MUSIC_RATE;
    const envelope = Math.min(1, within / 0.05) * Math.min(1, Math.max(0, (noteSeconds - 0.08 - within) / 0.05));
    source[i] = envelope * (2 * (phase % 1) - 1);
  }
  for (const [hz, bw] of [
    [730, 90],
    [1090, 110],
    [2440, 170],
  ])
    resonate(source, hz, bw);
  return normalize(Float32Array.from(source));
}
