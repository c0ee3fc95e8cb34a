// API key format: `sok_` + 33 base62 characters of 192 random bits + a 6-character checksum.
// The checksum lets a mistyped or made-up key be refused without touching the database.
import { hash } from 'node:crypto';
import { randomBase62, toBase62 } from './base62.js';

export const KEY_PREFIX = 'sok_';
const RANDOM_BYTES = 24;
const RANDOM_WIDTH = 33;
const CHECKSUM_WIDTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_WIDTH + CHECKSUM_WIDTH;
/**
 * How many characters of a key are kept in clear, for people to tell keys apart: 7, so that no
 * 8-character piece of any key is ever stored.
 */
export const DISPLAY_PREFIX_LENGTH = 7;

export function generateKey(): string {
  const body = KEY_PREFIX + randomBase62(RANDOM_BYTES, RANDOM_WIDTH);
  return body + checksum(body);
}

/** True when `candidate` has the key shape and a matching checksum. Runs no lookup. */
export function isWellFormedKey(candidate: string): boolean {
  return hasKeyShape(candidate) && hasValidChecksum(candidate);
}

/** The prefix, the length and the alphabet of a key: no hashing. */
export function hasKeyShape(candidate: string): boolean {
  return (
    candidate.length === KEY_LENGTH &&
    candidate.startsWith(KEY_PREFIX) &&
    /^[0-9A-Za-z]+$/.test(candidate.slice(KEY_PREFIX.length))
  );
}

/** For a candidate of the key shape: whether its last characters are the checksum of the rest. */
export function hasValidChecksum(candidate: string): boolean {
  return checksum(candidate.slice(0, -CHECKSUM_WIDTH)) === candidate.slice(-CHECKSUM_WIDTH);
}

/** The only form of a key the store keeps: a fixed-length SHA-256 digest. */
export function keyDigest(key: string): Buffer {
  // The one-shot form: every authenticated request hashes, and a Hash object per call costs more than
  // the hashing of so short a text.
  return hash('sha256', key, 'buffer');
}

/**
 * `sok_Ab3…`. The ellipsis is stored too: SQLite writes the next column's text right after this one,
 * and a bare prefix followed by a date's first digit could match 8 characters of the key.
 */
export function displayPrefix(key: string): string {
  return `${key.slice(0, DISPLAY_PREFIX_LENGTH)}…`;
}

function checksum(body: string): string {
  const digest = hash('sha256', body, 'buffer');
  // 4 bytes give 32 bits of checksum; 62^6 > 2^32, so 6 characters always hold them.
  return toBase62(digest.subarray(0, 4), CHECKSUM_WIDTH);
}
