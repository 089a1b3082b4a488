// The origin rule on its own: which Origin/Host pairs are the service's own, and which Host a sign-in link may use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAddressHostname, originAllowed, ownAddressBase, type OriginRules } from '../../src/http/origin-policy.ts';

const open: OriginRules = { publicOrigin: 'http://localhost:8080', publicUrlSet: false, allowedOrigins: [] };
const fixed: OriginRules = { publicOrigin: 'https://tts.example.com', publicUrlSet: true, allowedOrigins: ['http://localhost:5173'] };

test('address host names: IP literals and localhost, never a DNS name', () => {
  for (const h of ['127.0.0.1', '192.168.1.20', '[::1]', '[fe80::1]', 'localhost', 'LOCALHOST']) assert.ok(isAddressHostname(h), h);
  for (const h of ['example.com', '127.0.0.1.nip.io', 'localhost.evil.example', '1', '']) assert.ok(!isAddressHostname(h), h);
});

test('without PUBLIC_URL: Origin equal to its own address Host is allowed, anything else is not', () => {
  assert.ok(originAllowed(open, 'http://192.168.1.20:8080', '192.168.1.20:8080'));
  assert.ok(originAllowed(open, 'http://[::1]:8080', '[::1]:8080'));
  assert.ok(originAllowed(open, 'http://10.0.0.5', '10.0.0.5:80'), 'the default port, written or not');
  assert.ok(originAllowed(open, 'https://10.0.0.5', '10.0.0.5'), 'behind a TLS proxy on the same address');
  assert.ok(originAllowed(open, 'http://localhost:8080', 'anything'), 'PUBLIC_URL’s default origin');
  for (const [origin, host] of [
    ['http://evil.example', '192.168.1.20:8080'],
    ['http://192.168.1.21:8080', '192.168.1.20:8080'],
    ['http://rebind.example:8080', 'rebind.example:8080'],
    ['http://192.168.1.20:8080/', '192.168.1.20:8080'],
    ['null', '192.168.1.20:8080'],
    ['http://192.168.1.20:8080', 'user@192.168.1.20:8080'],
    ['file://192.168.1.20', '192.168.1.20'],
  ] as const) {
    assert.ok(!originAllowed(open, origin, host), `${origin} / ${host}`);
  }
  assert.ok(!originAllowed(open, undefined, '127.0.0.1:8080'));
  assert.ok(!originAllowed(open, 'http://127.0.0.1:8080', undefined));
});

test('with PUBLIC_URL: its origin and ALLOWED_ORIGINS only', () => {
  assert.ok(originAllowed(fixed, 'https://tts.example.com', 'tts.example.com'));
  assert.ok(originAllowed(fixed, 'http://localhost:5173', 'localhost:8080'));
  assert.ok(!originAllowed(fixed, 'http://127.0.0.1:8080', '127.0.0.1:8080'));
});

test('sign-in links go back only to the address and port the connection really reached', () => {
  const at = { host: '192.168.1.20:8080', scheme: 'http:', localAddress: '::ffff:192.168.1.20', localPort: 8080 };
  assert.equal(ownAddressBase(open, at), 'http://192.168.1.20:8080');
  assert.equal(ownAddressBase(open, { ...at, host: 'localhost:8080', localAddress: '127.0.0.1' }), 'http://localhost:8080');
  assert.equal(ownAddressBase(open, { ...at, host: '[::1]:8080', localAddress: '::1' }), 'http://[::1]:8080');
  assert.equal(ownAddressBase(open, { ...at, host: '6.6.6.6:8080' }), null, 'a forged Host');
  assert.equal(ownAddressBase(open, { ...at, host: '192.168.1.20:9999' }), null, 'another port');
  assert.equal(ownAddressBase(open, { ...at, host: 'localhost:8080' }), null, 'localhost on a non-loopback connection');
  assert.equal(ownAddressBase(open, { ...at, host: 'evil.example:8080' }), null);
  assert.equal(ownAddressBase(fixed, at), null, 'PUBLIC_URL decides');
});
