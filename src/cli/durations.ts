// A length of time as the CLI takes it: a whole number and its unit, `90d`, `12h`, `30m`, `45s`.
import { UsageError } from './io.js';

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
/** Beyond this, a date would leave what ISO 8601's four-digit years, and the database's text, hold. */
const MAX_DAYS = 36_500;

/** `text` in milliseconds; `0` alone is none at all, where `allowZero`. */
export function parseDuration(text: string, option: string, { allowZero = false } = {}): number {
  if (allowZero && text === '0') return 0;
  const match = /^([1-9][0-9]*)([dhms])$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms <= MAX_DAYS * UNIT_MS.d)) {
    const zero = allowZero ? ', or 0' : '';
    throw new UsageError(`${option} must be a whole number of days, hours, minutes or seconds (90d, 12h, 30m, 45s${zero}), at most ${MAX_DAYS}d; got "${text}"`);
  }
  return ms;
}

/** An ISO 8601 date and time with its offset, in the future, as the database keeps times (UTC, to the ms). */
export function parseFutureTime(text: string, option: string, now: Date): string {
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? new Date(text) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) {
    throw new UsageError(`${option} must be a date and time with its offset, as 2027-03-31T18:00:00Z; got "${text}"`);
  }
  if (at <= now) throw new UsageError(`${option} is not in the future: ${at.toISOString()}`);
  return at.toISOString();
}
