// Reading one environment variable: a whole number in a range, or one of a few words. A bad value is a
// ConfigError that names the variable and what it accepts. Shared by config.ts (the server's settings)
// and each store backend (its own), which must not depend on each other.
import { ConfigError } from './configError.js';

/** Nine digits at most: far above any sensible setting, and every value stays a valid timer delay. */
export const MAX_WHOLE = 999_999_999;

/**
 * The variable `name` of `env`, named once for the lookup and the message. The message names the allowed
 * range, so a refused value says what would have been accepted. Unset or empty: `fallback`.
 */
export function parseWhole<F extends number | undefined>(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: F,
  min: number,
  max = MAX_WHOLE,
): number | F {
  return wholeNumber(name, env[name], fallback, min, max);
}

export function wholeNumber<F extends number | undefined>(
  name: string,
  raw: string | undefined,
  fallback: F,
  min: number,
  max: number,
): number | F {
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** `raw` (the variable `name`, as the caller normalised its case) if it is one of `choices`. */
export function parseChoice<T extends string>(
  name: string,
  raw: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (raw === undefined || raw === '') return fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}
