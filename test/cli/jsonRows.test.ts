import { describe, expect, it } from 'vitest';
import { parseJsonRows } from '../../src/cli/jsonRows.js';

describe('parseJsonRows', () => {
  it('parses a valid file', () => {
    expect(parseJsonRows('[{"a":1},{"b":2}]')).toEqual({ rows: [{ a: 1 }, { b: 2 }] });
  });

  it.each([
    ['[{"petId":1},\n{"petId":2},\n{petId:3},\n{"petId":4}]', 3],
    ['[{"petId":1},{"petId":"a,b]"},{"petId":3,}]', 3],
    ['[{"petId":1},{"petId":2},', 3],
    ['[{"petId":1},{"petId":2', 2],
    ['[{"note":"a \\" quote"}, nope]', 2],
    ['[1, 2, 3 4]', 3],
  ])('names the row a syntax error falls in: %j → row %i', (text, row) => {
    expect(parseJsonRows(text)).toMatchObject({ row });
  });

  it('names no row when the file is not an array', () => {
    expect(parseJsonRows('{"petId": }')).toMatchObject({ row: undefined });
  });
});
