import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { readWithImportedMemory, withImportedMemory } from '../../src/wasm/imported-memory.ts';
import { WebAssemblyApi as W } from '../../src/wasm/web-assembly.ts';
import { fliteWasmPath } from '../../src/synth/engines/flite/compiled.ts';
import { EXPORT_MEMORY, HEADER, MEMORY } from './module-bytes.ts';

// One active segment: "hi" at address 16.
const DATA = [0x0b, 0x08, 0x01, 0x00, 0x41, 0x10, 0x0b, 0x02, 0x68, 0x69];
// A function type and an imported function env.f, so the existing imports must survive the rewrite.
const TYPES = [0x01, 0x04, 0x01, 0x60, 0x00, 0x00];
const IMPORT_F = [0x02, 0x09, 0x01, 0x03, ...Buffer.from('env'), 0x01, 0x66, 0x00, 0x00];

test('a module without imports gets its memory as env.memory, data segments written into the memory given', () => {
  const original = Uint8Array.from([...HEADER, ...MEMORY([0x00, 0x02]), ...EXPORT_MEMORY, ...DATA]);
  const { bytes, initialPages, maximumPages } = withImportedMemory(original);
  assert.equal(initialPages, 2);
  assert.equal(maximumPages, undefined);
  const module = new W.Module(bytes);
  assert.deepEqual(W.Module.imports(module), [{ module: 'env', name: 'memory', kind: 'memory' }]);
  const memory = new W.Memory({ initial: 2 });
  new Uint8Array(memory.buffer).fill(7);
  const instance = new W.Instance(module, { env: { memory } });
  assert.equal(instance.exports.memory, memory, 'the export is the memory passed in');
  const view = new Uint8Array(memory.buffer);
  assert.deepEqual([...view.subarray(15, 19)], [7, 0x68, 0x69, 7], 'the segment is written, nothing else touched');
});

test('existing imports are kept, and a maximum is carried over', () => {
  const original = Uint8Array.from([...HEADER, ...TYPES, ...IMPORT_F, ...MEMORY([0x01, 0x01, 0x03]), ...EXPORT_MEMORY, ...DATA]);
  const { bytes, initialPages, maximumPages } = withImportedMemory(original);
  assert.deepEqual([initialPages, maximumPages], [1, 3]);
  const module = new W.Module(bytes);
  assert.deepEqual(
    W.Module.imports(module).map((i) => `${i.module}.${i.name}:${i.kind}`),
    ['env.f:function', 'env.memory:memory'],
  );
  const memory = new W.Memory({ initial: 1, maximum: 3 });
  new W.Instance(module, { env: { f: () => undefined, memory } });
  assert.equal(new TextDecoder().decode(new Uint8Array(memory.buffer, 16, 2)), 'hi');
});

test('modules it cannot rewrite are refused with a reason', () => {
  assert.throws(() => withImportedMemory(Uint8Array.from([...HEADER, ...EXPORT_MEMORY])), /defines no memory/);
  assert.throws(() => withImportedMemory(Uint8Array.from([...HEADER, 0x05, 0x05, 0x02, 0x00, 0x01, 0x00, 0x01])), /2 memories/);
  assert.throws(() => withImportedMemory(Uint8Array.from([...HEADER, 0x05, 0x20, 0x01])), /past the end/);
});

test('read from a file, the rewrite is the same bytes: a small module, one with a large early section, and flite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'imported-memory-'));
  try {
    const small = Uint8Array.from([...HEADER, ...TYPES, ...IMPORT_F, ...MEMORY([0x01, 0x01, 0x03]), ...EXPORT_MEMORY, ...DATA]);
    // A custom section of 100 000 bytes before the memory: the head does not fit the first read.
    const name = [0x04, ...Buffer.from('big!')];
    const payload = 100_000 - name.length;
    const custom = [0x00, 0xa0, 0x8d, 0x06, ...name, ...new Array<number>(payload).fill(1)];
    const bigHead = Uint8Array.from([...HEADER, ...custom, ...MEMORY([0x00, 0x02]), ...EXPORT_MEMORY, ...DATA]);
    const flite = readFileSync(fliteWasmPath());
    for (const [label, binary] of [
      ['small', small],
      ['large early section', bigHead],
      ['flite', flite],
    ] as const) {
      const path = join(dir, `${label}.wasm`);
      await writeFile(path, binary);
      const fromFile = await readWithImportedMemory(path);
      const inMemory = withImportedMemory(binary);
      assert.equal(Buffer.compare(Buffer.from(fromFile.bytes), Buffer.from(inMemory.bytes)), 0, label);
      assert.deepEqual([fromFile.initialPages, fromFile.maximumPages], [inMemory.initialPages, inMemory.maximumPages], label);
      assert.ok(
        W.Module.imports(new W.Module(fromFile.bytes)).some((i) => i.kind === 'memory'),
        label,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
