// @evan/opus's own typings cover only its main entry, which loads a native addon that crashes the
// process once a second worker thread loads it (measured on Node 20). The wasm build has the same
// Encoder minus the property helpers; this declares what opus.ts uses of it.
declare module '@evan/opus/wasm/index.mjs' {
  export class Encoder {
    constructor(options: {
      channels: 1 | 2;
      sample_rate: 8000 | 12000 | 16000 | 24000 | 48000;
      application: 'voip' | 'audio' | 'restricted_lowdelay';
    });
    /** Getter form when `value` is omitted (returns the value); setter form otherwise (throws on error). */
    ctl(request: number, value?: number): number;
    /** Encodes one frame of interleaved 16-bit PCM; the result is a fresh copy. */
    encode(pcm: Int16Array): Uint8Array;
    drop(): void;
  }
}
