// Runs inside a worker thread (see workers.test.ts): resample and encode every format, report sizes.
import { parentPort, workerData } from 'node:worker_threads';
import { createEncoder, FORMATS, type EncodeFormat } from '../../src/audio/encoders/index.ts';
import { createResampler } from '../../src/audio/resample.ts';
import { sine } from './signals.ts';

const rounds = (workerData as { rounds: number }).rounds;
const sizes: Record<string, number> = {};
for (let r = 0; r < rounds; r++) {
  for (const format of Object.keys(FORMATS) as EncodeFormat[]) {
    const enc = await createEncoder(format);
    const rs = await createResampler(22050, enc.sampleRate);
    const x = sine(200, 0.5, 22050);
    let bytes = enc.write(rs.process(x)).length;
    bytes += enc.write(rs.flush()).length;
    bytes += enc.end().length;
    sizes[format] = bytes;
  }
}
parentPort?.postMessage(sizes);
