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
