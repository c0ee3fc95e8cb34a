// The cursor of v2's pages: it reads back as the position it names, for the same filters only.
import { describe, expect, it } from 'vitest';
import { readCursor, writeCursor } from '../../../src/operations/v2/pageCursor.js';
import type { OrderFilter } from '../../../src/store/store.js';

const filter: OrderFilter = { statuses: ['pending', 'shipped'], petId: 7, shipDateFrom: '2026-12-01T00:00:00.000Z' };

describe('the page cursor', () => {
  it('reads back as the last id it names, in characters a query needs no escape for', () => {
    const cursor = writeCursor(42, filter);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(readCursor(cursor, filter)).toEqual({ afterId: 42 });
    expect(readCursor(writeCursor(Number.MAX_SAFE_INTEGER, filter), filter)).toEqual({ afterId: Number.MAX_SAFE_INTEGER });
  });

  it('is the same for the statuses in any order, and a mismatch for any other filter', () => {
    const cursor = writeCursor(1, filter);
    expect(readCursor(cursor, { ...filter, statuses: ['shipped', 'pending'] })).toEqual({ afterId: 1 });
    for (const other of [
      { ...filter, statuses: ['pending'] as const },
      { ...filter, petId: 8 },
      { statuses: filter.statuses, shipDateFrom: '2026-12-01T00:00:00.000Z' },
      { ...filter, complete: false },
      { ...filter, shipDateFrom: '2026-12-01T00:00:00.001Z' },
      { ...filter, shipDateBefore: '2027-01-01T00:00:00.000Z' },
    ]) {
      expect(readCursor(cursor, other)).toEqual({ problem: 'cursor_mismatch' });
    }
  });

  it('is invalid when it does not read as one the server makes', () => {
    const encoded = (json: string) => Buffer.from(json).toString('base64url');
    for (const cursor of ['', 'abc', encoded('{"a":"1","f":"x"}'), encoded('{"a":-1,"f":"x"}'), encoded('{"a":1}'),
      encoded('{"a":9007199254740993,"f":"x"}'), encoded('"text"'), encoded('null')]) {
      expect(readCursor(cursor, filter)).toEqual({ problem: 'invalid_cursor' });
    }
  });
});

describe('the filters a cursor is bound to', () => {
  // Every field, and another value for each: `satisfies` fails `tsc` when OrderFilter gains one.
  const every = {
    statuses: ['pending'],
    petId: 7,
    complete: true,
    shipDateFrom: '2026-12-01T00:00:00.000Z',
    shipDateBefore: '2027-01-01T00:00:00.000Z',
  } as const satisfies Required<OrderFilter>;
  const others = {
    statuses: ['shipped'],
    petId: 8,
    complete: false,
    shipDateFrom: '2026-12-02T00:00:00.000Z',
    shipDateBefore: '2027-01-02T00:00:00.000Z',
  } as const satisfies Required<OrderFilter>;

  it.each(Object.keys(every) as (keyof OrderFilter)[])('are all of them: a cursor does not serve another %s', (field) => {
    const cursor = writeCursor(1, every);
    expect(readCursor(cursor, { ...every, [field]: others[field] })).toEqual({ problem: 'cursor_mismatch' });
    if (field !== 'statuses') {
      const without = Object.fromEntries(Object.entries(every).filter(([name]) => name !== field)) as unknown as OrderFilter;
      expect(readCursor(cursor, without)).toEqual({ problem: 'cursor_mismatch' });
    }
  });

  it('are read as before: a cursor an earlier release made serves the same filters', () => {
    // Made by the digest as 1.4.0 wrote it out by hand, for `filter`, after order 42.
    expect(readCursor('eyJhIjo0MiwiZiI6Im5JQzFzWTdaalNxb2xqcUwifQ', filter)).toEqual({ afterId: 42 });
  });
});
