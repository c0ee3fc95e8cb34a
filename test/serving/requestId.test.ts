// requestIdFor: which incoming X-Request-Id values are kept, and which are replaced by a new id.
import { describe, expect, it } from 'vitest';
import { generateKey } from '../../src/keys.js';
import { requestIdFor } from '../../src/serving/requestId.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('requestIdFor', () => {
  it.each([
    ['a UUID', '7f3c2a1e-0b4d-4c5e-9f6a-1b2c3d4e5f60'],
    ['letters, digits and . _ : -', 'trace-123.abc:9_x'],
    ['an id that starts like the prefix without its underscore', 'sok-42'],
    ['a word holding "sok"', 'sokoban_level:3'],
    ['128 characters', 'a'.repeat(128)],
  ])('keeps %s', (_name, id) => {
    expect(requestIdFor(id)).toBe(id);
  });

  const key = generateKey();
  // The first six may be a key, or hold one: a key's prefix anywhere, in any case.
  it.each<[string, string | string[] | undefined]>([
    ['a key', key],
    ['a key inside a longer id', `trace-${key}-7`],
    ['a key in upper case', key.toUpperCase()],
    ['a key with its prefix in mixed case', `SoK_${key.slice(4)}`],
    ['a truncated key', key.slice(0, 12)],
    ['the prefix alone', 'sok_'],
    ['none', undefined],
    ['an empty one', ''],
    ['one with a space', 'bad id'],
    ['one over 128 characters', 'a'.repeat(129)],
    ['a repeated field', ['a', 'b']],
  ])('makes a new id for %s', (_name, id) => {
    const made = requestIdFor(id);
    expect(made).toMatch(UUID);
    expect(made).not.toBe(id);
  });
});
