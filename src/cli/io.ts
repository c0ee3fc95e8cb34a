// What every CLI command shares: the store it opens, how it prints, and how it refuses bad input.
// Reading the arguments themselves is args.ts.
import { loadDatabasePath, loadSynchronous } from '../config.js';
import { openSqliteStore } from '../store/sqlite/sqliteStore.js';
import type { AdminStore } from '../store/store.js';

/** A refusal the user can fix; printed as one line, exit status 1 (2 for usage mistakes). */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError(`${message} (see \`store-orders help\`)`, 2);
}

/** One noun's commands, by verb: `keys` → { create, list, revoke }. */
export type Verbs = Record<string, (context: CliContext, args: string[]) => void>;

export interface CliContext {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
}

export function withStore<T>({ env }: CliContext, work: (store: AdminStore) => T): T {
  const store = openSqliteStore(loadDatabasePath(env), { synchronous: loadSynchronous(env) });
  try {
    return work(store);
  } finally {
    store.close();
  }
}

export function printJson(context: CliContext, value: unknown): void {
  context.out(JSON.stringify(value, null, 2));
}
