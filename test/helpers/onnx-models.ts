// Small ONNX models with exactly the input and output signatures of real Piper and Kokoro voices, whose
// audio is a known function of their inputs, so tests (and the bench) can check what reached the model:
// - Piper: a sine of (len(input) x length_scale x SAMPLES_PER_ID) samples at 441 - 100 x sid Hz, with an
//   amplitude of sum(input) / (len(input) x PIPER_AMPLITUDE_DIVISOR).
// - Kokoro: a sine of (len(tokens) x SAMPLES_PER_TOKEN / speed) samples at 24 kHz, at
//   200 + 1000 x mean(style) Hz, with an amplitude of sum(tokens) / (len(tokens) x KOKORO_AMPLITUDE_DIVISOR).
// Written with protobufjs from a JSON description of the onnx.proto messages used.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import protobuf from 'protobufjs';

export const PIPER_SAMPLES_PER_ID = 256;
export const PIPER_AMPLITUDE_DIVISOR = 128;
export const PIPER_BASE_HZ = 441;
export const PIPER_HZ_PER_SPEAKER = 100;
export const KOKORO_SAMPLES_PER_TOKEN = 300;
export const KOKORO_AMPLITUDE_DIVISOR = 256;

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;

const root = protobuf.Root.fromJSON({
  nested: {
    onnx: {
      nested: {
        ModelProto: {
          fields: {
            ir_version: { type: 'int64', id: 1 },
            producer_name: { type: 'string', id: 2 },
            graph: { type: 'GraphProto', id: 7 },
            opset_import: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
          },
        },
        OperatorSetIdProto: { fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } } },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            op_type: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
          },
        },
        AttributeProto: {
          fields: { name: { type: 'string', id: 1 }, i: { type: 'int64', id: 3 }, type: { type: 'int32', id: 20 } },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            data_type: { type: 'int32', id: 2 },
            float_data: { rule: 'repeated', type: 'float', id: 4 },
            int64_data: { rule: 'repeated', type: 'int64', id: 7 },
            name: { type: 'string', id: 8 },
          },
        },
        ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
        TypeProto: { fields: { tensor_type: { type: 'TypeTensor', id: 1 } } },
        TypeTensor: { fields: { elem_type: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } },
        TensorShapeProto: { fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } } },
        Dimension: { fields: { dim_value: { type: 'int64', id: 1 }, dim_param: { type: 'string', id: 2 } } },
      },
    },
  },
});
const ModelProto = root.lookupType('onnx.ModelProto');

type Dim = number | string;
interface Node {
  op_type: string;
  input: string[];
  output: string[];
  attribute?: { name: string; i: number; type: number }[];
}

function valueInfo(name: string, elem: number, dims: Dim[]): object {
  return {
    name,
    type: {
      tensor_type: { elem_type: elem, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })) } },
    },
  };
}

/** A tiny graph builder: each op gets a fresh output name. */
class Graph {
  readonly nodes: Node[] = [];
  readonly initializers: object[] = [];
  private n = 0;

  const(values: number[], type: 'float' | 'int64', dims: number[] = []): string {
    const name = `c${this.n++}`;
    this.initializers.push(
      type === 'float' ? { name, data_type: FLOAT, dims, float_data: values } : { name, data_type: INT64, dims, int64_data: values },
    );
    return name;
  }

  op(op_type: string, input: string[], attrs: Record<string, number> = {}): string {
    const out = `t${this.n++}`;
    const attribute = Object.entries(attrs).map(([name, i]) => ({ name, i, type: ATTR_INT }));
    this.nodes.push({ op_type, input, output: [out], ...(attribute.length ? { attribute } : {}) });
    return out;
  }

  /** Renames the last op's output (graph outputs have fixed names). */
  name(last: string, name: string): void {
    const node = this.nodes.find((x) => x.output[0] === last);
    if (!node) throw new Error(`no op gives ${last}`);
    node.output = [name];
  }

  encode(inputs: object[], outputs: object[]): Uint8Array {
    const model = {
      ir_version: 8,
      producer_name: 'voxsmith-test',
      opset_import: [{ domain: '', version: 13 }],
      graph: { name: 'g', node: this.nodes, initializer: this.initializers, input: inputs, output: outputs },
    };
    return ModelProto.encode(ModelProto.fromObject(model)).finish();
  }
}

/** The sine body shared by both models: amplitude x sin(2 pi f n / rate), n = 0..count-1. */
function sine(g: Graph, count: string, hz: string, amplitude: string, rate: number): string {
  const n = g.op('Range', [g.const([0], 'int64'), count, g.const([1], 'int64')]);
  const phase = g.op('Mul', [g.op('Mul', [g.op('Cast', [n], { to: FLOAT }), hz]), g.const([(2 * Math.PI) / rate], 'float')]);
  return g.op('Mul', [g.op('Sin', [phase]), amplitude]);
}

export interface PiperModelOptions {
  multiSpeaker?: boolean;
  /** A model that fails at inference (reads past the end of its input's shape). */
  failing?: boolean;
  sampleRate?: number;
  /** Adds an unused constant of this many bytes (a model the size of a real download, for progress bars). */
  paddingBytes?: number;
  /** Samples per phoneme id at length_scale 1 (default PIPER_SAMPLES_PER_ID): a large value is a model that babbles. */
  samplesPerId?: number;
}

/** An initializer no node reads: onnxruntime drops it, the file is simply larger. */
function pad(g: Graph, bytes: number | undefined): void {
  if (!bytes) return;
  const n = Math.ceil(bytes / 4);
  g.const(
    Array.from({ length: n }, (_, i) => (i % 251) / 251),
    'float',
    [n],
  );
}

export function piperModel(options: PiperModelOptions = {}): Uint8Array {
  const g = new Graph();
  const rate = options.sampleRate ?? 22050;
  pad(g, options.paddingBytes);
  const shape = g.op('Shape', ['input']);
  const t = g.op('Gather', [shape, g.const([options.failing ? 7 : 1], 'int64')], { axis: 0 });
  const tf = g.op('Cast', [t], { to: FLOAT });
  const lengthScale = g.op('Gather', ['scales', g.const([1], 'int64')], { axis: 0 });
  const count = g.op(
    'Cast',
    [g.op('Mul', [g.op('Mul', [tf, lengthScale]), g.const([options.samplesPerId ?? PIPER_SAMPLES_PER_ID], 'float')])],
    { to: INT64 },
  );
  const hz = options.multiSpeaker
    ? g.op('Sub', [
        g.const([PIPER_BASE_HZ], 'float'),
        g.op('Mul', [g.op('Cast', ['sid'], { to: FLOAT }), g.const([PIPER_HZ_PER_SPEAKER], 'float')]),
      ])
    : g.const([PIPER_BASE_HZ], 'float', [1]);
  const sum = g.op('ReduceSum', [g.op('Cast', ['input'], { to: FLOAT })], { keepdims: 0 });
  const amplitude = g.op('Div', [sum, g.op('Mul', [tf, g.const([PIPER_AMPLITUDE_DIVISOR], 'float')])]);
  const out = g.op('Reshape', [sine(g, count, hz, amplitude, rate), g.const([1, 1, -1], 'int64', [3])]);
  g.name(out, 'output');
  const inputs = [valueInfo('input', INT64, [1, 'phonemes']), valueInfo('input_lengths', INT64, [1]), valueInfo('scales', FLOAT, [3])];
  if (options.multiSpeaker) inputs.push(valueInfo('sid', INT64, [1]));
  return g.encode(inputs, [valueInfo('output', FLOAT, [1, 1, 'time'])]);
}

export function kokoroModel(options: { paddingBytes?: number } = {}): Uint8Array {
  const g = new Graph();
  pad(g, options.paddingBytes);
  const t = g.op('Gather', [g.op('Shape', ['tokens']), g.const([1], 'int64')], { axis: 0 });
  const tf = g.op('Cast', [t], { to: FLOAT });
  const count = g.op('Cast', [g.op('Div', [g.op('Mul', [tf, g.const([KOKORO_SAMPLES_PER_TOKEN], 'float')]), 'speed'])], { to: INT64 });
  const hz = g.op('Add', [
    g.op('Mul', [g.op('ReduceMean', ['style'], { keepdims: 0 }), g.const([1000], 'float')]),
    g.const([200], 'float'),
  ]);
  const sum = g.op('ReduceSum', [g.op('Cast', ['tokens'], { to: FLOAT })], { keepdims: 0 });
  const amplitude = g.op('Div', [sum, g.op('Mul', [tf, g.const([KOKORO_AMPLITUDE_DIVISOR], 'float')])]);
  // Range needs a scalar limit: count is [1] after the Div by speed [1].
  const limit = g.op('Squeeze', [count, g.const([0], 'int64', [1])]);
  const out = sine(g, limit, hz, amplitude, 24000);
  g.name(out, 'waveform');
  return g.encode(
    [valueInfo('tokens', INT64, [1, 'tokens']), valueInfo('style', FLOAT, [1, 256]), valueInfo('speed', FLOAT, [1])],
    [valueInfo('waveform', FLOAT, ['time'])],
  );
}

/** A Piper phoneme_id_map over the symbols espeak's English IPA uses, with small ids (so amplitudes stay below 1). */
export const TEST_PHONEME_ID_MAP: Record<string, number[]> = (() => {
  const map: Record<string, number[]> = { _: [0], '^': [1], $: [2], ' ': [3], '.': [4], ',': [5], '?': [6], '!': [7] };
  const symbols = 'abdefhijklmnopstuvwzæçðŋɐɑɒɔəɚɛɜɡɪɹɾʃʊʌʒʔˈˌːθᵻ';
  let id = 8;
  for (const s of symbols.normalize('NFD')) if (!map[s]) map[s] = [id++];
  return map;
})();

export interface PiperConfigOptions {
  speakers?: string[];
  dataset?: string;
  quality?: string;
  sampleRate?: number;
  lengthScale?: number;
}

export function piperConfig(options: PiperConfigOptions = {}): object {
  const speakers = options.speakers ?? [];
  return {
    audio: { sample_rate: options.sampleRate ?? 22050, quality: options.quality ?? 'medium' },
    espeak: { voice: 'en-us' },
    inference: { noise_scale: 0.667, length_scale: options.lengthScale ?? 1, noise_w: 0.8 },
    phoneme_type: 'espeak',
    phoneme_id_map: TEST_PHONEME_ID_MAP,
    num_symbols: 256,
    num_speakers: Math.max(1, speakers.length),
    speaker_id_map: Object.fromEntries(speakers.map((s, i) => [s, i])),
    language: {
      code: 'en_US',
      family: 'en',
      region: 'US',
      name_native: 'English',
      name_english: 'English',
      country_english: 'United States',
    },
    dataset: options.dataset ?? 'testset',
  };
}

/** A .npy of float32 [510, 1, 256] whose row r is filled with value(r). */
export function styleNpy(value: (row: number) => number): Uint8Array {
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (510, 1, 256), }";
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = new Uint8Array(10 + header.length);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(head.buffer).setUint16(8, header.length, true);
  head.set(strToU8(header), 10);
  const data = new Float32Array(510 * 256);
  for (let r = 0; r < 510; r++) data.fill(value(r), r * 256, (r + 1) * 256);
  const out = new Uint8Array(head.length + data.byteLength);
  out.set(head);
  out.set(new Uint8Array(data.buffer), head.length);
  return out;
}

/** A voices-*.bin (npz) holding the given style arrays. */
export function voicesNpz(voices: Record<string, (row: number) => number>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(voices).map(([name, f]) => [`${name}.npy`, styleNpy(f)])), { level: 0 });
}

/** Test Kokoro voices: constant styles 0.1 (300 Hz) and 0.25 (450 Hz), and one whose style row r gives 200 + r Hz. */
export const TEST_KOKORO_VOICES: Record<string, (row: number) => number> = {
  af_alpha: () => 0.1,
  am_beta: () => 0.25,
  bf_rows: (r) => r / 1000,
};

export interface VoicesDirOptions {
  /** Also write a model that fails at inference, a truncated model and a model without its JSON. */
  broken?: boolean;
}

/** Writes a VOICES_DIR with a single- and a multi-speaker Piper voice and a Kokoro bundle; returns it. */
export function writeVoicesDir(dir: string, options: VoicesDirOptions = {}): string {
  mkdirSync(dir, { recursive: true });
  const single = piperModel();
  writeFileSync(join(dir, 'en_US-testset-medium.onnx'), single);
  writeFileSync(join(dir, 'en_US-testset-medium.onnx.json'), JSON.stringify(piperConfig()));
  writeFileSync(join(dir, 'en_US-chorus-low.onnx'), piperModel({ multiSpeaker: true }));
  writeFileSync(
    join(dir, 'en_US-chorus-low.onnx.json'),
    JSON.stringify(piperConfig({ speakers: ['ann', 'bob', 'cid'], dataset: 'chorus', quality: 'low' })),
  );
  writeFileSync(join(dir, 'kokoro-v1.0.onnx'), kokoroModel());
  writeFileSync(join(dir, 'voices-v1.0.bin'), voicesNpz(TEST_KOKORO_VOICES));
  if (options.broken) {
    writeFileSync(join(dir, 'en_US-failing-medium.onnx'), piperModel({ failing: true }));
    writeFileSync(join(dir, 'en_US-failing-medium.onnx.json'), JSON.stringify(piperConfig({ dataset: 'failing' })));
    writeFileSync(join(dir, 'en_US-cut-medium.onnx'), single.subarray(0, Math.floor(single.length / 2)));
    writeFileSync(join(dir, 'en_US-cut-medium.onnx.json'), JSON.stringify(piperConfig({ dataset: 'cut' })));
    writeFileSync(join(dir, 'en_US-lonely-medium.onnx'), single);
  }
  return dir;
}
