// The engine contract for Piper and Kokoro, on the generated models of test/helpers/onnx-models.ts.
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installNeuralModels } from '../../../src/synth/neural-models.ts';
import { scanVoicesDir } from '../../../src/voices/neural-catalog.ts';
import { writeVoicesDir } from '../../helpers/onnx-models.ts';
import { engineConformance } from '../engine-conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'voxsmith-conformance-'));
writeVoicesDir(dir);
// The suites are declared now, so the voices they name must be known now.
installNeuralModels((await scanVoicesDir(dir)).models);
after(() => rmSync(dir, { recursive: true, force: true }));

// Neither has a pitch control, and a sine says no words: those checks are skipped (stated in the report).
engineConformance({
  engine: 'piper',
  voice: { engine: 'piper', base: 'en_US-testset-medium' },
  lowPitchHz: 110,
  highPitchHz: 220,
  speech: false,
});
engineConformance({
  engine: 'kokoro',
  voice: { engine: 'kokoro', base: 'kokoro-v1.0/af_alpha' },
  lowPitchHz: 110,
  highPitchHz: 220,
  speech: false,
});
