import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/http/duplicateKeys.js';
import { FUZZ_SEED, replay } from '../support/fuzz/seed.js';

describe('firstDuplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":1,"b":2,"a":3}', 'a'],
    [String.raw`{"a":1,"\u0061":2}`, 'a'],
    [String.raw`{"\u0061":1,"a":2}`, 'a'],
    [String.raw`{"\"":1,"\u0022":2}`, '"'],
    [String.raw`{"a\\":1,"a\u005c":2}`, 'a\\'],
    ['{"x":{"y":{"z":1,"z":2}}}', 'z'],
    ['[1,{"a":[{"b":1}],"c":{"b":1,"b":2}}]', 'b'],
    ['[{"a":1},{"a":1,"a":2}]', 'a'],
    ['{"":1,"":2}', ''],
    [' { "a" : 1 , "a" : 2 } ', 'a'],
    ['{"a":{"b":1},"a":2}', 'a'],
  ])('finds the duplicate in %s', (text, name) => {
    expect(firstDuplicateKey(text)).toBe(name);
  });

  it.each([
    '{}',
    '[]',
    '"a"',
    '42',
    'null',
    '{"a":1,"A":2}',
    '{"a":"a","b":"a"}',
    '{"a":["a","a"]}',
    '{"a":1,"b":{"a":2}}',
    '[{"a":1},{"a":2}]',
    '{"a":{"b":1},"b":{"a":1}}',
    String.raw`{"a\"b":1,"a":2,"b":3}`,
    String.raw`{"a":"\",\"a\":1","b":2}`,
    String.raw`{"a":"\\","b":"{\"b\":"}`,
    '{"a":"}","b":"]","c":",","d":"{"}',
    '{"😀":1,"😁":2}',
  ])('finds none in %s', (text) => {
    expect(firstDuplicateKey(text)).toBeUndefined();
  });

  it(`reports a duplicate exactly when one of several random objects repeats a name, escaped or not (seed ${FUZZ_SEED})`, () => {
    // Member values come from JS objects, so only the members written here can repeat a name.
    const member = fc.tuple(fc.constantFrom('a', 'b', 'a"', '\\', 'é', '\u{1F436}'), fc.jsonValue({ maxDepth: 2 }));
    const object = fc.array(member, { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(object, { minLength: 1, maxLength: 3 }), (objects) => {
        const texts = objects.map(
          (members) =>
            `{${members.map(([name, value]) => `${escapeSome(name)}:${JSON.stringify(value)}`).join(',')}}`,
        );
        const text = `[${texts.join(',')}]`;
        const repeated = objects.some((members) => new Set(members.map(([name]) => name)).size < members.length);
        expect(JSON.parse(text)).toHaveLength(objects.length);
        expect(firstDuplicateKey(text) !== undefined).toBe(repeated);
      }),
      replay,
    );
  });

  it('scans a 1 MiB body', () => {
    const text = JSON.stringify({ message: 'x'.repeat(1024 * 1024 - 20), list: [1, 2] });
    expect(firstDuplicateKey(text)).toBeUndefined();
    expect(firstDuplicateKey(`${text.slice(0, -1)},"list":3}`)).toBe('list');
  });
});

/** A name as a JSON string, with its first character \u-escaped: the escape must not hide a duplicate. */
function escapeSome(name: string): string {
  const first = name.codePointAt(0) ?? 0;
  if (first > 0xffff) return JSON.stringify(name);
  const escaped = `\\u${first.toString(16).padStart(4, '0')}`;
  return `"${escaped}${JSON.stringify(name.slice(1)).slice(1, -1)}"`;
}
