// Reading a command line: which command it names, or which help page, or which mistake it makes; then
// running it. Exit status: 0 done, 1 refused or failed, 2 a usage mistake, each refusal one line on stderr.
import { ConfigError } from '../config.js';
import { type Command, type Entry, isNoun, oneOf } from './command.js';
import { COMMANDS } from './commands.js';
import { commandHelp, nounHelp, overviewHelp } from './help.js';
import { type CliContext, CliError, UsageError } from './io.js';

const HELP_FLAGS = ['--help', '-h'];

/** What to do, and the command it is for: a usage mistake points to that command's help. */
type Step = { path: string[] } & ({ run: Command; args: string[] } | { help: string } | { mistake: string });

function entryNamed(name: string | undefined): Entry | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function unknown(name: string): string {
  return name.startsWith('-') ? `unknown option ${name}` : `unknown command "${name}"`;
}

/** Reads `<noun> [<verb>] [args]`; with `help`, the page it names rather than the command. */
function resolve(argv: string[], help: boolean): Step {
  const [name = '', ...rest] = argv;
  const entry = entryNamed(name);
  if (!entry) return { path: [], mistake: unknown(name) };
  if (!isNoun(entry)) return commandStep([name], entry, rest, help);
  const [verb, ...args] = rest;
  const command = verb !== undefined && Object.hasOwn(entry.verbs, verb) ? entry.verbs[verb] : undefined;
  if (command) return commandStep([name, verb as string], command, args, help);
  if (verb !== undefined && !verb.startsWith('-')) return { path: [name], mistake: unknown(verb) };
  if (help || (verb !== undefined && HELP_FLAGS.includes(verb))) {
    return { path: [name], help: nounHelp(name, entry) };
  }
  // A noun that runs alone (`deprecations`) takes the options after it as its own.
  if (entry.bare) return commandStep([name], entry.bare, rest, false);
  if (verb === undefined) return { path: [name], mistake: `missing command: ${oneOf(Object.keys(entry.verbs))}` };
  return { path: [name], mistake: unknown(verb) };
}

function commandStep(path: string[], command: Command, args: string[], help: boolean): Step {
  return help || args.some((arg) => HELP_FLAGS.includes(arg))
    ? { path, help: commandHelp(command) }
    : { path, run: command, args };
}

function step(argv: string[]): Step | { usage: string } {
  const [first] = argv;
  if (first === undefined) return { usage: overviewHelp(COMMANDS) };
  if (first === '--version') return resolve(['version', ...argv.slice(1)], false);
  if (first === 'help' || HELP_FLAGS.includes(first)) {
    const named = argv.slice(1).filter((arg) => arg !== 'help' && !HELP_FLAGS.includes(arg));
    return named.length === 0 ? { path: [], help: overviewHelp(COMMANDS) } : resolve(named, true);
  }
  return resolve(argv, false);
}

/** One line: the command, what is wrong, and where its help is. */
function usageLine(path: string[], message: string): string {
  const command = path.join(' ');
  return `${command && `${command}: `}${message}; see store-orders ${command && `${command} `}--help`;
}

/** Runs the command line `argv`; resolves to the exit status. */
export async function runCommandLine(argv: string[], context: CliContext): Promise<number> {
  const next = step(argv);
  if ('usage' in next) {
    context.note(next.usage);
    return 2;
  }
  const fail = (message: string, code: number) => {
    context.note(`store-orders: ${message}`);
    return code;
  };
  if ('help' in next) {
    context.out(next.help);
    return 0;
  }
  if ('mistake' in next) return fail(usageLine(next.path, next.mistake), 2);
  try {
    await next.run.run(context, next.args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(usageLine(next.path, error.message), 2);
    if (error instanceof CliError) return fail(error.message, error.exitCode);
    if (error instanceof ConfigError) return fail(`bad configuration: ${error.message}`, 1);
    return fail((error as Error).message, 1);
  }
}
