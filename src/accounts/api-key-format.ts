import { randomBytes } from 'node:crypto';

/**
 * API key layout: `service_sk_` + 12-character public id + 32-character secret + 6-character checksum,
 * all base62 so a double click selects the whole key. The id finds the row; the secret (about 190 bits)
 * is stored only as a digest; the checksum (CRC-32 of id and secret) lets malformed or mistyped keys be
 * refused before any database lookup.
 */
export const KEY_PREFIX = 'service_sk_';
const ID_LENGTH = 12;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}([0-9A-Za-z]{${ID_LENGTH}})([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

export interface ParsedKey {
  id: string;
  secret: string;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function checksum(text: string): string {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] ^ (crc >>> 8);
  let value = (crc ^ 0xffffffff) >>> 0;
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateKey(): { key: string; id: string; secret: string } {
  const id = randomBase62(ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { key: `${KEY_PREFIX}${id}${secret}${checksum(id + secret)}`, id, secret };
}

/** Returns the parts of a well-formed key, or null for anything malformed (no lookup needed). */
export function parseKey(key: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  const [, id, secret, sum] = match;
  return checksum(id + secret) === sum ? { id, secret } : null;
}

export function maskKey(last4: string): string {
  return `${KEY_PREFIX}${'*'.repeat(8)}${last4}`;
}
