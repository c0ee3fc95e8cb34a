// Fixed-width base62 text for random identifiers: no `-` or `_`, so a double-click selects the whole token.
import { pooledRandomBytes } from './pooledRandom.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Encodes `bytes` as exactly `width` base62 characters (left-padded with `0`). */
export function toBase62(bytes: Uint8Array, width: number): string {
  const text = bytes.length <= 6 ? smallDigits(bytes) : bigDigits(bytes);
  if (text.length > width)
    throw new RangeError(`${bytes.length} bytes do not fit in ${width} base62 characters`);
  return text.padStart(width, '0');
}

/** Up to 48 bits fit a double exactly: a key's checksum, checked on every request, needs no BigInt. */
function smallDigits(bytes: Uint8Array): string {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  let text = '';
  for (; value > 0; value = Math.floor(value / 62)) text = ALPHABET[value % 62] + text;
  return text;
}

function bigDigits(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = '';
  for (; value > 0n; value /= 62n) text = ALPHABET[Number(value % 62n)] + text;
  return text;
}

/** `byteCount` random bytes as base62; 16 bytes need 22 characters, 24 bytes need 33. */
export function randomBase62(byteCount: number, width: number): string {
  return toBase62(pooledRandomBytes(byteCount), width);
}

/**
 * `width` base62 characters, each drawn uniformly and on its own: about 5.95 bits each, with no BigInt
 * arithmetic, which costs more than the rest of an id. A byte of 248 or more (4 × 62) is drawn again, so
 * that every character is equally likely.
 */
export function randomCharacters(width: number): string {
  let text = '';
  while (text.length < width) {
    const bytes = pooledRandomBytes(width - text.length);
    for (const byte of bytes) if (byte < 248) text += ALPHABET[byte % 62];
  }
  return text;
}
