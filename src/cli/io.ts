// What every CLI command shares: the store it opens, how it prints, and how it refuses bad input.
// Reading the arguments themselves is args.ts.
import { type DatabaseLocation, describeDatabase, loadStoreSettings } from '../store/backends.js';
import type { SchemaMigration } from '../store/migrations.js';
import { openStore as openAnyStore } from '../store/open.js';
import type { AdminStore } from '../store/store.js';

/** A refusal the user can fix; printed as one line, exit status 1. */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: number = 1;
}

/**
 * A usage mistake: exit status 2. Its message says what is wrong; main.ts prefixes the command and points to
 * that command's --help, so the code that finds the mistake need not know which command it serves.
 */
export class UsageError extends CliError {
  override name = 'UsageError';
  override readonly exitCode = 2;
}

export interface CliContext {
  env: NodeJS.ProcessEnv;
  /** Standard output: what a script reads (JSON, or the new key alone). */
  out: (line: string) => void;
  /** Standard error: what a person should see even when standard output goes into a pipe. */
  note: (line: string) => void;
}

/**
 * Opens the database at DATABASE_URL. Only `init` creates it: any other command on a missing file refuses
 * with the server's own message, rather than write to an empty new database at a mistyped path.
 */
export async function openStore({ env, note }: CliContext, { create = false } = {}): Promise<AdminStore> {
  const { location, backends } = loadStoreSettings(env, 'command');
  // Any command migrates an older schema, after which older builds refuse the database: say so. A new
  // database's schema goes unsaid: init's own line tells of it.
  const onMigrated = ({ from, to }: SchemaMigration) => {
    if (from > 0) note(`Migrated the schema from version ${from} to ${to}.`);
  };
  try {
    return await openAnyStore(location, { settings: backends, create, onMigrated });
  } catch (error) {
    throw new CliError(`cannot open database ${describeDatabase(location)}: ${(error as Error).message}`);
  }
}

export async function withStore<T>(context: CliContext, work: (store: AdminStore) => T | Promise<T>): Promise<T> {
  const store = await openStore(context);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The database at DATABASE_URL (empty: the default). */
export function databaseLocation({ env }: CliContext): DatabaseLocation {
  return loadStoreSettings(env, 'command').location;
}

/** DATABASE_URL as the commands name it: the file's path, or the PostgreSQL URL without its password. */
export function databaseName(context: CliContext): string {
  return describeDatabase(databaseLocation(context));
}

export function printJson(context: CliContext, value: unknown): void {
  context.out(JSON.stringify(value, null, 2));
}
