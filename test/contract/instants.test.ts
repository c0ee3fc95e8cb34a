// Date-time bounds as the store compares them: the first millisecond at or after the date-time.
import { describe, expect, it } from 'vitest';
import {
  FIRST_INSTANT,
  holdsNoInstant,
  instantAtOrAfter,
  LAST_INSTANT,
  NO_SHIP_DATE,
  shipDateRange,
  storedShipDate,
} from '../../src/contract/instants.js';

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

describe('shipDateRange', () => {
  const range = (from?: string, before?: string) =>
    shipDateRange({
      ...(from !== undefined && { shipDateFrom: instantAtOrAfter(from) as string }),
      ...(before !== undefined && { shipDateBefore: instantAtOrAfter(before) as string }),
    });
  const year10000 = ['9999-12-31T23:00:00-01:00', '9999-12-31T23:59:60Z', '9999-12-31T23:59:59.9999Z'];

  it('keeps bounds within the years 0000 to 9999 in UTC as they are', () => {
    expect(range('2026-12-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual({
      shipDateFrom: '2026-12-01T00:00:00.000Z',
      shipDateBefore: '2027-01-01T00:00:00.000Z',
    });
    expect(range(LAST_INSTANT)).toEqual({ shipDateFrom: LAST_INSTANT });
    expect(range(undefined, '0000-01-01T00:00:00.001Z')).toEqual({ shipDateBefore: '0000-01-01T00:00:00.001Z' });
    expect(range()).toEqual({});
  });

  it.each(year10000)('reads %s as after every ship date: from it matches none, before it every one', (bound) => {
    expect(instantAtOrAfter(bound)).toMatch(/^\+010000-/);
    expect(range(bound)).toEqual(NO_SHIP_DATE);
    expect(range(undefined, bound)).toEqual({ shipDateFrom: FIRST_INSTANT });
    expect(range('2026-12-01T00:00:00Z', bound)).toEqual({ shipDateFrom: '2026-12-01T00:00:00.000Z' });
  });

  it('reads an instant of the year -1 as before every ship date: from it matches every one, before it none', () => {
    expect(range('0000-01-01T00:00:00+01:00')).toEqual({ shipDateFrom: FIRST_INSTANT });
    expect(range(undefined, '0000-01-01T00:00:00+01:00')).toEqual(NO_SHIP_DATE);
    expect(range(undefined, FIRST_INSTANT)).toEqual(NO_SHIP_DATE);
  });

  it('writes every range that holds no instant alike', () => {
    expect(range('2026-12-02T00:00:00Z', '2026-12-01T00:00:00Z')).toEqual(NO_SHIP_DATE);
    expect(range('2026-12-01T00:00:00Z', '2026-12-01T00:00:00Z')).toEqual(NO_SHIP_DATE);
    expect(holdsNoInstant(NO_SHIP_DATE)).toBe(true);
    expect(holdsNoInstant(range('2026-12-01T00:00:00Z', '2026-12-01T00:00:00.001Z'))).toBe(false);
  });
});

describe('storedShipDate', () => {
  it('is the instant in UTC to the millisecond, within the years 0000 to 9999 in UTC only', () => {
    expect(storedShipDate('2026-12-01T09:00:00+01:00')).toBe('2026-12-01T08:00:00.000Z');
    expect(storedShipDate('9999-12-31T23:59:59.999Z')).toBe(LAST_INSTANT);
    expect(storedShipDate('0000-01-01T00:00:00Z')).toBe(FIRST_INSTANT);
    expect(storedShipDate('9999-12-31T23:00:00-01:00')).toBeUndefined();
    expect(storedShipDate('0000-01-01T00:00:00+01:00')).toBeUndefined();
    expect(storedShipDate('soon')).toBeUndefined();
  });
});
