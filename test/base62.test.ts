import { describe, expect, it } from 'vitest';
import { randomCharacters } from '../src/base62.js';

describe('randomCharacters (message ids)', () => {
  it('draws exactly the width asked for, from the 62 letters and digits only', () => {
    for (const width of [1, 22, 300]) expect(randomCharacters(width)).toMatch(new RegExp(`^[0-9A-Za-z]{${width}}$`));
  });

  it('draws every character equally often: a byte over 247 is drawn again, not folded onto the first eight', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) {
      for (const character of randomCharacters(22)) counts.set(character, (counts.get(character) ?? 0) + 1);
    }
    const seen = [...counts.values()];
    expect(counts.size).toBe(62);
    // 1.1 M characters: about 17,700 each, within ±4% by chance; folding would give the first eight 25% more.
    expect(Math.max(...seen) / Math.min(...seen)).toBeLessThan(1.12);
  });
});
