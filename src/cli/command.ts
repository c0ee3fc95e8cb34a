// The shape of the command table: a command runs and describes itself; a noun groups commands by verb.
import type { AdminStore } from '../store/store.js';
import { noArguments } from './args.js';
import { type CliContext, printJson, withStore } from './io.js';

export interface Command {
  /** What follows `store-orders`: `orders add --pet-id N --quantity N [...]`. */
  usage: string;
  /** One line for the list of commands. */
  summary: string;
  /** The command's own --help page, after its usage line. */
  description: string;
  run(context: CliContext, args: string[]): void | Promise<void>;
}

export interface Noun {
  summary: string;
  verbs: Record<string, Command>;
  /** Run when the noun is given without a verb (`store-orders deprecations`); else that is a mistake. */
  bare?: Command;
}

export type Entry = Command | Noun;

export function isNoun(entry: Entry): entry is Noun {
  return 'verbs' in entry;
}

/** `a`, `a or b`, `a, b or c`. */
export function oneOf(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The `run` of a listing: it takes no arguments and prints what `read` finds in the store, as JSON. */
export function printsFromStore(read: (store: AdminStore) => Promise<unknown>): Command['run'] {
  return async (context, args) => {
    noArguments(args);
    await withStore(context, async (store) => printJson(context, await read(store)));
  };
}
