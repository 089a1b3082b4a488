// espeak-ng keeps what it is in the middle of in C statics that nothing the bundled build exposes resets (not
// set_voice, not a new worker object): the glottal wave's phase, the pitch flutter's position, the resonators,
// the echo. Each synthesis went on from where the instance's last one stopped, so the same text in the same
// voice came out different, by up to one 100 ms buffer at the end (whether espeak's last buffer was filled),
// depending on what the thread had spoken before. The module's memory is all of that state: the wasm2js build
// keeps no other between calls but the stack pointer, back at its base when a call returns. So a synthesis
// starts from a copy of the memory taken before any synthesis, with its voice selected. espeak also draws
// random numbers while it speaks, from a generator it seeds with the clock when a worker is made: a fixed
// clock there gives every thread the same sequence, and the restored memory the same start of it.
import type { EspeakCString, EspeakRawModule, EspeakRawWorker } from './module.ts';

/** The part of the module's memory in use (statics, stack, heap) at one moment. */
class MemoryImage {
  private constructor(private readonly bytes: Uint8Array) {}

  /**
   * Everything below the top of the heap. A block larger than any free one comes from the top, so its address
   * bounds what is allocated; freeing it gives the space back. Above it the heap holds nothing that is read
   * before it is written, so the image leaves it out (1.2 MB of the 17 MB).
   */
  static take(m: EspeakRawModule): MemoryImage {
    const top = m._malloc(m.HEAPU8.length >> 1);
    if (top === 0) throw new Error('espeak-ng: out of memory');
    m._free(top);
    return new MemoryImage(m.HEAPU8.slice(0, top));
  }

  restore(m: EspeakRawModule): void {
    m.HEAPU8.set(this.bytes);
  }
}

/** A worker seeded alike on every thread: the constructor reads the clock once, for srand. */
export function newEspeakWorker(m: EspeakRawModule): EspeakRawWorker {
  const now = Date.now;
  Date.now = () => 0;
  try {
    return new m.eSpeakNGWorker();
  } finally {
    Date.now = now;
  }
}

const INITIAL_TEXT_BYTES = 16 * 1024;
const encoder = new TextEncoder();

/**
 * One espeak worker whose syntheses each start from the same state: `begin(voice)` restores it (the voice's
 * image while the voice stays the same, a copy of 1.2 MB; on a change the image before any voice, then
 * set_voice, 0.7 ms). Strings go to espeak through a buffer allocated before the images were taken.
 */
export class FreshEspeak {
  private base!: MemoryImage;
  private voiceImage: { name: string; image: MemoryImage } | undefined;
  private buffer = 0;
  private capacity = 0;

  constructor(
    private readonly m: EspeakRawModule,
    private readonly worker: EspeakRawWorker,
    firstVoice: string,
  ) {
    this.allocate(INITIAL_TEXT_BYTES);
    // The binding allocates its own string buffer on its first call; it has to exist in every image, or a
    // restore would hand its memory back to malloc while the binding still holds it.
    if (this.worker.set_voice(this.cString(firstVoice)) !== 0) throw new Error(`espeak-ng has no voice ${JSON.stringify(firstVoice)}`);
    this.base = MemoryImage.take(this.m);
  }

  /** Restores the state before any synthesis with `voice` selected; false when espeak has no such voice. */
  begin(voice: string, text: string): boolean {
    this.reserve(text);
    if (this.voiceImage?.name === voice) {
      this.voiceImage.image.restore(this.m);
      return true;
    }
    this.voiceImage = undefined;
    this.base.restore(this.m);
    if (this.worker.set_voice(this.cString(voice)) !== 0) return false;
    this.voiceImage = { name: voice, image: MemoryImage.take(this.m) };
    return true;
  }

  /** `text` in the module's memory; after begin(), which made room for it. */
  cString(text: string): EspeakCString {
    const { written } = encoder.encodeInto(text, this.m.HEAPU8.subarray(this.buffer, this.buffer + this.capacity - 1));
    this.m.HEAPU8[this.buffer + written] = 0;
    return { ptr: this.buffer };
  }

  /** A longer text than ever before: a larger buffer, and the images taken again around it. */
  private reserve(text: string): void {
    const needed = text.length * 3 + 1;
    if (needed <= this.capacity) return;
    this.base.restore(this.m);
    this.m._free(this.buffer);
    this.allocate(Math.max(needed, this.capacity * 2));
    this.base = MemoryImage.take(this.m);
    this.voiceImage = undefined;
  }

  private allocate(bytes: number): void {
    this.buffer = this.m._malloc(bytes);
    if (this.buffer === 0) throw new Error('espeak-ng: out of memory');
    this.capacity = bytes;
  }
}
