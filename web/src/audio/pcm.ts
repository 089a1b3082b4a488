function wavHeader(dataBytes: number, sampleRate: number, bitsPerSample: number, format: number): ArrayBuffer {
  const header = new ArrayBuffer(44);
  const v = new DataView(header);
  const text = (offset: number, s: string) => {
    for (let i = 0; i < s.length; i++) v.setUint8(offset + i, s.charCodeAt(i));
  };
  const blockAlign = bitsPerSample / 8;
  text(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, format, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * blockAlign, true);
  v.setUint16(32, blockAlign, true);
  v.setUint16(34, bitsPerSample, true);
  text(36, 'data');
  v.setUint32(40, dataBytes, true);
  return header;
}

/** Mono float samples as a 16-bit PCM WAV file. */
export function encodeWav(samples: Float32Array, sampleRate: number): Blob {
  const data = new DataView(new ArrayBuffer(samples.length * 2));
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    data.setInt16(i * 2, s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff), true);
  }
  return new Blob([wavHeader(data.byteLength, sampleRate, 16, 1), data.buffer], { type: 'audio/wav' });
}

/** Raw 16-bit little-endian mono PCM (the `pcm` format) wrapped so an audio element can play it. */
export async function pcmBlobToWav(pcm: Blob, sampleRate: number): Promise<Blob> {
  const bytes = await pcm.arrayBuffer();
  const even = bytes.byteLength - (bytes.byteLength % 2);
  return new Blob([wavHeader(even, sampleRate, 16, 1), bytes.slice(0, even)], { type: 'audio/wav' });
}
