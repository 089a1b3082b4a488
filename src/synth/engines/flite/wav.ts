/** Reads the 16-bit mono PCM WAV flite writes into float samples. */
export function readPcm16Wav(bytes: Uint8Array): { samples: Float32Array; sampleRate: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('flite: output is not a WAV file');
  let sampleRate = 0;
  let channels = 0;
  let bits = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(at);
    // flite streams its output and may leave the data size short or zero; trust the file's end instead.
    let size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
      bits = view.getUint16(body + 14, true);
    } else if (id === 'data') {
      if (bits !== 16 || channels !== 1) throw new Error(`flite: unexpected WAV format (${channels} ch, ${bits} bit)`);
      if (size === 0 || body + size > bytes.length) size = bytes.length - body;
      const n = Math.floor(size / 2);
      const samples = new Float32Array(n);
      for (let i = 0; i < n; i++) samples[i] = view.getInt16(body + 2 * i, true) / 32768;
      return { samples, sampleRate };
    }
    at = body + size + (size & 1);
  }
  throw new Error('flite: WAV has no data chunk');
}
