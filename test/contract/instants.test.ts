// Date-time bounds as the store compares them: the first millisecond at or after the date-time.
import { describe, expect, it } from 'vitest';
import { instantAtOrAfter } from '../../src/contract/instants.js';

describe('instantAtOrAfter', () => {
  it.each([
    ['2026-12-01T00:00:00Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01t10:30:00.5z', '2026-12-01T10:30:00.500Z'],
    ['2026-12-01 01:00:00+01:00', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00.123456-05:30', '2026-12-01T05:30:00.124Z'],
    ['2026-12-01T00:00:00.1230000Z', '2026-12-01T00:00:00.123Z'],
    ['2026-12-01T00:00:00.0000001Z', '2026-12-01T00:00:00.001Z'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T23:59:60.5Z', '2017-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (dateTime, instant) => {
    expect(instantAtOrAfter(dateTime)).toBe(instant);
  });

  it.each(['2026-12-01T00:00:00', '2026-12-01', 'yesterday', '2026-13-01T00:00:00Z', ''])('reads %j as no date-time', (text) => {
    expect(instantAtOrAfter(text)).toBeUndefined();
  });

  it('keeps a bound exact for instants kept to the millisecond', () => {
    const stored = ['2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.001Z'];
    const bound = instantAtOrAfter('2026-12-01T00:00:00.0004Z') as string;
    // At or after 00:00:00.0004 is 00:00:00.001 only; before it, 00:00:00.000 only.
    expect(stored.filter((instant) => instant >= bound)).toEqual([stored[1]]);
    expect(stored.filter((instant) => instant < bound)).toEqual([stored[0]]);
  });
});
