// Reading a command's arguments: its --options, a positive id, exactly one positional. A mistake is a
// UsageError naming what is wrong, in one line.
import { UsageError } from './io.js';

export type OptionKinds = Record<string, 'string' | 'boolean'>;
export type OptionValues<K extends OptionKinds> = {
  [name in keyof K]?: K[name] extends 'string' ? string : true;
};

/**
 * The long options of `kinds` and the positionals, in the GNU style: `--name value` or `--name=value`, and
 * `--` ends the options. A value may start with one dash, so `--quantity -1` reads -1 (which the command
 * then refuses as out of range) rather than an option `-1`; a value starting with `--` is an option.
 * Node's parseArgs reads `-1` as an option and explains in three lines; a user wants one.
 */
export function parseOptions<K extends OptionKinds>(
  args: readonly string[],
  kinds: K,
): { values: OptionValues<K>; positionals: string[] } {
  const values: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-' || /^-[0-9]/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const option = equals === -1 ? arg : arg.slice(0, equals);
    const name = option.slice(2);
    const kind = option.startsWith('--') && Object.hasOwn(kinds, name) ? kinds[name] : undefined;
    if (kind === undefined) throw new UsageError(`unknown option ${option}`);
    if (Object.hasOwn(values, name)) throw new UsageError(`${option} is given twice`);
    if (kind === 'boolean') {
      if (equals !== -1) throw new UsageError(`${option} takes no value`);
      values[name] = true;
      continue;
    }
    const next = args[i + 1];
    const value = equals !== -1 ? arg.slice(equals + 1) : next?.startsWith('--') ? undefined : next;
    if (value === undefined) throw new UsageError(`${option} needs a value`);
    if (equals === -1) i++;
    values[name] = value;
  }
  return { values: values as OptionValues<K>, positionals };
}

/** Refuses any argument: for the commands that take none. */
export function noArguments(args: readonly string[]): void {
  const { positionals } = parseOptions(args, {});
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
}

/** Refuses a positional: for the commands that take only options. */
export function onlyOptions<K extends OptionKinds>(args: readonly string[], kinds: K): OptionValues<K> {
  const { values, positionals } = parseOptions(args, kinds);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  return values;
}

/** The one positional a command takes, with no options. */
export function exactlyOne(args: readonly string[], what: string): string {
  const { positionals } = parseOptions(args, {});
  if (positionals.length !== 1) throw new UsageError(`expected exactly one ${what}`);
  return positionals[0] as string;
}

/** A positive whole number that JavaScript holds exactly. */
export function parseId(raw: string | undefined, what: string): number {
  if (raw === undefined || !/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < 1) {
    throw new UsageError(
      `${what} must be a positive whole number, got ${raw === undefined ? 'nothing' : `"${raw}"`}`,
    );
  }
  return Number(raw);
}
