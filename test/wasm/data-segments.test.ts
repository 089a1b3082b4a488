import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { activeDataRanges, zeroOutside } from '../../src/wasm/data-segments.ts';
import { WebAssemblyApi as W } from '../../src/wasm/web-assembly.ts';
import { fliteWasmPath } from '../../src/synth/engines/flite/compiled.ts';
import { EXPORT_MEMORY, HEADER, MEMORY } from './module-bytes.ts';

/** An active segment (flags 0) of `bytes` at i32.const `offset` (offset < 64, one LEB byte). */
const segment = (offset: number, bytes: number[]) => [0x00, 0x41, offset, 0x0b, bytes.length, ...bytes];
const dataSection = (...segments: number[][]) => {
  const body = [segments.length, ...segments.flat()];
  return [0x0b, body.length, ...body];
};

test('the ranges are where instantiation writes the segments, sorted and merged', () => {
  const binary = Uint8Array.from([
    ...HEADER,
    ...MEMORY([0x00, 0x01]),
    ...EXPORT_MEMORY,
    ...dataSection(segment(40, [9, 9]), segment(8, [1, 2, 3]), segment(11, [4]), segment(20, [])),
  ]);
  const ranges = activeDataRanges(binary);
  assert.deepEqual(ranges, [
    [8, 12],
    [40, 42],
  ]);
  const instance = new W.Instance(new W.Module(binary), {});
  const view = new Uint8Array((instance.exports.memory as { buffer: ArrayBuffer }).buffer);
  for (let i = 0; i < 64; i++) {
    const inside: boolean = ranges!.some(([s, e]) => i >= s && i < e);
    assert.equal(view[i] !== 0, inside, `byte ${i}`);
  }
});

test('a module without data has no ranges; a passive or computed placement cannot be known', () => {
  assert.deepEqual(activeDataRanges(Uint8Array.from([...HEADER, ...MEMORY([0x00, 0x01])])), []);
  const passive = [0x0b, 0x04, 0x01, 0x01, 0x01, 0x07];
  assert.equal(activeDataRanges(Uint8Array.from([...HEADER, ...MEMORY([0x00, 0x01]), ...passive])), null);
  const globalPlaced = [0x0b, 0x07, 0x01, 0x00, 0x23, 0x00, 0x0b, 0x01, 0x07];
  assert.equal(activeDataRanges(Uint8Array.from([...HEADER, ...MEMORY([0x00, 0x01]), ...globalPlaced])), null);
});

test('zeroOutside clears everything but the ranges', () => {
  const memory = new Uint8Array(32).fill(5);
  zeroOutside(memory, [
    [4, 8],
    [20, 40],
  ]);
  assert.deepEqual([...memory], [0, 0, 0, 0, 5, 5, 5, 5, ...new Array<number>(12).fill(0), ...new Array<number>(12).fill(5)]);
});

test("flite's voice data fills nearly all of its initial memory", () => {
  const binary = readFileSync(fliteWasmPath());
  const ranges = activeDataRanges(binary);
  assert.ok(ranges && ranges.length > 0);
  const covered = ranges.reduce((n, [s, e]) => n + (e - s), 0);
  assert.ok(covered > 15 * 1024 * 1024, `${covered} bytes`);
});
