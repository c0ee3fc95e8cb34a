// SECURITY.md gives a secret scanner the key's pattern and a line that checks a key's checksum offline:
// both are read from SECURITY.md itself and run here on keys made as the CLI makes them, and on altered ones.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateKey, isWellFormedKey } from '../../src/keys.js';

const security = readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8');
const pattern = new RegExp(/matches `(\\bsok_[^`]+)`/.exec(security)?.[1] ?? 'not found', 'g');
const checkLine = /`(node -e '[^`]+' sok_…)`/.exec(security)?.[1];

/** What SECURITY.md's line prints for `key`. */
function check(key: string): string {
  return execFileSync('sh', ['-c', (checkLine as string).replace(/sok_…$/, `'${key}'`)], { encoding: 'utf8' }).trim();
}

/** `key` with its character at `index` replaced by another of the alphabet. */
function altered(key: string, index: number): string {
  const other = key[index] === 'a' ? 'b' : 'a';
  return key.slice(0, index) + other + key.slice(index + 1);
}

describe("SECURITY.md's key format", () => {
  it("its pattern finds every key in a text, whole, and nothing of a longer token", () => {
    const keys = Array.from({ length: 200 }, generateKey);
    const text = keys.map((key, i) => (i % 2 ? `token=${key};` : `"${key}"`)).join('\n');
    expect(text.match(pattern)).toEqual(keys);
    expect(`${keys[0]}x`.match(pattern)).toBeNull();
  });

  it('its offline check accepts made keys and refuses a key with any one character changed, as the server does', () => {
    expect(checkLine).toBeDefined();
    for (const key of Array.from({ length: 3 }, generateKey)) {
      expect(check(key)).toBe('a key');
      for (const index of [4, 20, 36, 37, 42]) {
        const changed = altered(key, index);
        expect([check(changed), isWellFormedKey(changed)]).toEqual(['not a key', false]);
      }
    }
  });
});
