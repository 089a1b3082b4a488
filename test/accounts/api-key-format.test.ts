import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKey, maskKey, parseKey } from '../../src/accounts/api-key-format.ts';

test('generated keys parse back to their parts', () => {
  for (let i = 0; i < 200; i++) {
    const { key, id, secret } = generateKey();
    assert.ok(key.startsWith('service_sk_'));
    assert.deepEqual(parseKey(key), { id, secret });
  }
});

test('keys are unique and carry at least 128 bits of secret', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) seen.add(generateKey().secret);
  assert.equal(seen.size, 1000);
  assert.ok(generateKey().secret.length * Math.log2(62) >= 128);
});

test('every single-character change is caught by the checksum', () => {
  const { key } = generateKey();
  let caught = 0;
  let total = 0;
  for (let i = 'service_sk_'.length; i < key.length; i++) {
    const replacement = key[i] === 'x' ? 'y' : 'x';
    total++;
    if (parseKey(key.slice(0, i) + replacement + key.slice(i + 1)) === null) caught++;
  }
  assert.equal(caught, total);
});

test('malformed keys are refused', () => {
  for (const bad of [
    '',
    'service_sk_',
    'sk_live_abc',
    `${generateKey().key}x`,
    generateKey().key.slice(0, -1),
    `Service_sk_${generateKey().key.slice(11)}`,
  ]) {
    assert.equal(parseKey(bad), null, bad);
  }
});

test('masking keeps the prefix and the last four characters', () => {
  assert.equal(maskKey('abcd'), 'service_sk_********abcd');
});
