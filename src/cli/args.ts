// Reading a command's arguments: a positive id, exactly one positional; a mistake is a usage error.
import { usageError } from './io.js';

/** A positive whole number that JavaScript holds exactly. */
export function parseId(raw: string | undefined, what: string): number {
  if (raw === undefined || !/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < 1) {
    throw usageError(
      `${what} must be a positive whole number, got ${raw === undefined ? 'nothing' : `"${raw}"`}`,
    );
  }
  return Number(raw);
}

export function exactlyOne(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw usageError(`expected exactly one ${what}`);
  return positionals[0] as string;
}
