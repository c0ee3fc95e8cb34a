import { describe, expect, it } from 'vitest';
import {
  DISPLAY_PREFIX_LENGTH,
  displayPrefix,
  generateKey,
  isWellFormedKey,
  KEY_LENGTH,
  keyDigest,
} from '../src/keys.js';

describe('API keys', () => {
  it('look like sok_ and 39 base62 characters', () => {
    const key = generateKey();
    expect(key).toMatch(/^sok_[0-9A-Za-z]{39}$/);
    expect(key).toHaveLength(KEY_LENGTH);
    expect(isWellFormedKey(key)).toBe(true);
  });

  it('are different every time', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateKey));
    expect(keys.size).toBe(1000);
  });

  it('fail the checksum when any one character changes', () => {
    const key = generateKey();
    for (let at = 4; at < key.length; at++) {
      const changed = key.slice(0, at) + (key[at] === 'x' ? 'y' : 'x') + key.slice(at + 1);
      expect(isWellFormedKey(changed), `position ${at}`).toBe(false);
    }
  });

  it('refuse the wrong prefix, length or alphabet', () => {
    const key = generateKey();
    expect(isWellFormedKey(`sk_${key.slice(3)}`)).toBe(false);
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedKey(`${key}0`)).toBe(false);
    expect(isWellFormedKey(`${key.slice(0, 10)}-${key.slice(11)}`)).toBe(false);
    expect(isWellFormedKey('')).toBe(false);
  });

  it('are stored as a 32-byte digest and a 7-character prefix with an ellipsis', () => {
    const key = generateKey();
    expect(keyDigest(key)).toHaveLength(32);
    expect(keyDigest(key)).toEqual(keyDigest(key));
    expect(displayPrefix(key)).toBe(`${key.slice(0, 7)}…`);
    expect(DISPLAY_PREFIX_LENGTH).toBeLessThan(8);
  });
});
