// RFC 3339 date-times as the store compares them: ISO 8601 instants in UTC, to the millisecond, as
// `Date#toISOString` writes them.

/**
 * The first millisecond at or after `dateTime`, or undefined when it is no date-time. Rounding up keeps a
 * bound exact: an instant of the store (whole milliseconds) is at or after `dateTime` exactly when it is at
 * or after the result, and before it exactly when it is before the result. A leap second (`23:59:60`), which
 * a JavaScript Date cannot hold, is followed by the next minute.
 */
export function instantAtOrAfter(dateTime: string): string | undefined {
  const parts = /^(.+[T ]\d\d:\d\d:)(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(dateTime.toUpperCase());
  if (!parts) return undefined;
  const [, head, seconds, fraction = '', zone] = parts as unknown as [string, string, string, string, string];
  const leapSecond = seconds === '60';
  const wholeSecond = Date.parse(`${head}${leapSecond ? '59' : seconds}${zone}`);
  if (Number.isNaN(wholeSecond)) return undefined;
  const milliseconds = leapSecond
    ? 1000
    : Number(fraction.slice(0, 3).padEnd(3, '0')) + (/[1-9]/.test(fraction.slice(3)) ? 1 : 0);
  const instant = new Date(wholeSecond + milliseconds);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
}

/**
 * The first and the last instant the store keeps. RFC 3339 writes a year in four digits, so an instant
 * outside these, in UTC, is one no answer could carry; `Date#toISOString` writes it with a sign and six
 * digits (`+010000-…`), which text order would put before every other.
 */
export const FIRST_INSTANT = '0000-01-01T00:00:00.000Z';
export const LAST_INSTANT = '9999-12-31T23:59:59.999Z';
const FIRST_MS = Date.parse(FIRST_INSTANT);
const LAST_MS = Date.parse(LAST_INSTANT);

/** A ship date as the store keeps it: the instant, to the millisecond, in UTC; undefined outside the store's. */
export function storedShipDate(dateTime: string): string | undefined {
  const instant = new Date(dateTime);
  if (Number.isNaN(instant.getTime())) return undefined;
  const text = instant.toISOString();
  return /^\d{4}-/.test(text) ? text : undefined;
}

/** The ship-date bounds of a filter: `shipDateFrom` inclusive, `shipDateBefore` exclusive. */
export interface ShipDateRange {
  shipDateFrom?: string;
  shipDateBefore?: string;
}

/** The range that holds no instant, as every such range is written, so that it is one filter however asked. */
export const NO_SHIP_DATE: Readonly<Required<ShipDateRange>> = { shipDateFrom: LAST_INSTANT, shipDateBefore: LAST_INSTANT };

/**
 * The bounds, given as instants (instantAtOrAfter's), as the store compares them: as text, which orders its
 * own instants only. A bound beyond them is moved to where it matches the same ship dates: `shipDateFrom`
 * before the first instant to the first; `shipDateBefore` after the last is dropped, `shipDateFrom` then
 * being at least the first (an order without a ship date matches no bound). A range that holds none of the
 * store's instants (`shipDateFrom` after the last, `shipDateBefore` at or before the first, or one at or
 * after the other) is NO_SHIP_DATE.
 */
export function shipDateRange({ shipDateFrom, shipDateBefore }: ShipDateRange): ShipDateRange {
  let from = shipDateFrom === undefined ? undefined : Math.max(Date.parse(shipDateFrom), FIRST_MS);
  let before = shipDateBefore === undefined ? undefined : Date.parse(shipDateBefore);
  if (before !== undefined && before > LAST_MS) {
    before = undefined;
    from ??= FIRST_MS;
  }
  if ((from ?? FIRST_MS) > LAST_MS || (before !== undefined && before <= (from ?? FIRST_MS))) return { ...NO_SHIP_DATE };
  const range: ShipDateRange = {};
  if (from !== undefined) range.shipDateFrom = new Date(from).toISOString();
  if (before !== undefined) range.shipDateBefore = new Date(before).toISOString();
  return range;
}

/** Whether the range holds no instant (it is NO_SHIP_DATE). */
export function holdsNoInstant({ shipDateFrom, shipDateBefore }: ShipDateRange): boolean {
  return shipDateFrom !== undefined && shipDateBefore !== undefined && shipDateFrom >= shipDateBefore;
}
