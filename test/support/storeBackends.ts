// The one way a test gets a scratch database, of any backend: the store behaviour suite, the test servers
// (TEST_STORE names theirs), the servers and CLIs run as processes, the multi-instance and fault tests. The
// table is keyed by src/store/backends.ts's kinds, so a backend added there fails tsc until it has an entry
// here (backends/<kind>.ts), and then every suite that runs on each backend runs on it too. A backend's
// entry also holds what the tests read or write in its databases past the store: no other test module
// but the backend's own tests imports its internals. A scratch database has this build's schema, copied from
// a database its backend migrated once in this process (a test file's worker), unless the test asks for an
// empty one: the tests of migrations, and of what creates a database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { BACKENDS, type BackendKind, databaseUrl, type DatabaseLocation } from '../../src/store/backends.js';
import { openStore, type StoreOptions } from '../../src/store/open.js';
import type { Dialect } from '../../src/store/orderPages.js';
import type { AdminStore } from '../../src/store/store.js';
import { postgresTests } from './backends/postgres.js';
import { sqliteTests } from './backends/sqlite.js';

/** A statement and its parameters' values. */
export interface Statement {
  sql: string;
  values: unknown[];
}

/** What a test does to a database past the store, as an earlier version, another tool or an operator could. */
export interface PastTheStore {
  /** Runs the statements, in one go. */
  execute(sql: string): Promise<void>;
  /** The rows of one statement. */
  rows<T extends object>(sql: string, values?: readonly unknown[]): Promise<T[]>;
  /** Into an empty database: the schema an earlier release left, its first `version` migrations as it applied them. */
  writeOlderSchema(version: number): Promise<void>;
  /** Records `version` as the schema's version and changes nothing else: what an older or newer build would find. */
  stampSchemaVersion(version: number): Promise<void>;
  /**
   * The schema's version and every table (with its count of rows), column, index, constraint, trigger and
   * function, one sorted line each: two databases read the same when their schemas and row counts are.
   */
  outline(): Promise<string[]>;
  /** How the database reads orders for the statement, one line per access, and what it sorts below the top. */
  queryPlan(statement: Statement): Promise<{ reads: string[]; sorts: string[] }>;
  /** Where the database counts them: the rows each of the statement's scans of orders read, those dropped included. */
  rowsReadByScan?(statement: Statement): Promise<number[]>;
  /** Where the database tells: how many rows of the one list being streamed from it it has sent so far. */
  rowsSent?(): Promise<number>;
}

/**
 * What a new scratch database holds. `latest`: this build's schema and no rows, as a store leaves a new
 * database it opened, and an identity of its own (the list versions' source). `empty`: nothing at all, not
 * even a file on SQLite, as before any store or `store-orders init` opened it.
 */
export type ScratchSchema = 'latest' | 'empty';

/** How the tests make a database of one backend, and what they know of it. */
export interface TestBackend<Location extends DatabaseLocation> {
  /** Why no scratch database of it can be made on this machine; unset where one can. */
  unavailable?: string;
  /**
   * A new database holding `schema`, its files (if any) in `folder`; `drop` removes it. With `latest`, a copy
   * of a database this process migrated once, given an identity of its own.
   */
  create(folder: string, schema: ScratchSchema): Promise<{ location: Location; drop: () => Promise<void> }>;
  pastTheStore(location: Location): PastTheStore;
  /** How many schema migrations it has, and which of them keeps ship dates within years 0000 to 9999. */
  migrations: { latest: number; shipDateRange: number };
  /** How its page query (orderPages.ts) writes a parameter and merges the arms, to plan the statement it runs. */
  pageDialect(values: unknown[]): Dialect;
  /** A step of a query plan that reads orders through an index, never the whole table. */
  indexRead: RegExp;
  /** Whether separate servers on one database share the request quotas' count (the store's `quotas`). */
  sharedQuotas: boolean;
  /** Where streamed lists are read on the event loop: the rows read in one turn over all of them. */
  rowsPerTurn?: number;
}

/** Where a database of `Kind` is. */
export type LocationOf<Kind extends BackendKind> = Extract<DatabaseLocation, { kind: Kind }>;

/** Each backend's entry, by kind. */
export const TEST_BACKENDS = { sqlite: sqliteTests, postgres: postgresTests } satisfies {
  [Kind in BackendKind]: TestBackend<LocationOf<Kind>>;
};

/** A backend as every suite sees it, its location's type forgotten: it is only given its own kind's. */
export interface StoreBackend extends TestBackend<DatabaseLocation> {
  kind: BackendKind;
  available: boolean;
}

/** The backend of `kind`, as every suite sees it. */
export function storeBackend(kind: BackendKind): StoreBackend {
  const entry = TEST_BACKENDS[kind] as TestBackend<DatabaseLocation>;
  return { ...entry, kind, available: entry.unavailable === undefined };
}

/** Every backend, in src/store/backends.ts's order: what a suite run on each backend iterates. */
export const STORE_BACKENDS: readonly StoreBackend[] = BACKENDS.map(({ kind }) => storeBackend(kind));

/** A new database of one backend, in a folder of the test's own, and what the test may do to it. */
export interface ScratchDatabase<Kind extends BackendKind = BackendKind> extends PastTheStore {
  kind: Kind;
  location: LocationOf<Kind>;
  /** As DATABASE_URL names it. */
  url: string;
  /** The test's own, for whatever other files it writes; the database's files, if any, are in it. */
  folder: string;
  /** A store on the database: each one open stands for one more process sharing it. */
  open(options?: StoreOptions): Promise<AdminStore>;
  /** Removes the database, ending whatever still uses it, and the folder. */
  drop(): Promise<void>;
}

export interface ScratchOptions {
  /** Of the test's folder's name. */
  prefix?: string;
  /** `latest` unless given. */
  schema?: ScratchSchema;
}

/** A new database of `kind`, with this build's schema unless told otherwise; a string is the folder's prefix. */
export async function scratchDatabase<Kind extends BackendKind>(
  kind: Kind,
  options: string | ScratchOptions = {},
): Promise<ScratchDatabase<Kind>> {
  const { prefix = `store-orders-${kind}-`, schema = 'latest' } = typeof options === 'string' ? { prefix: options } : options;
  const backend = storeBackend(kind);
  if (backend.unavailable !== undefined) throw new Error(`no ${kind} database can be made here: ${backend.unavailable}`);
  const folder = mkdtempSync(join(tmpdir(), prefix));
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  const { location, drop } = await backend.create(folder, schema).catch((error: unknown) => {
    removeFolder();
    throw error;
  });
  return {
    ...backend.pastTheStore(location),
    kind,
    location: location as LocationOf<Kind>,
    url: databaseUrl(location),
    folder,
    open: (options = {}) => openStore(location, options),
    async drop() {
      await drop();
      removeFolder();
    },
  };
}

/** A server the test started as a process (processes.ts's ServerProcess), as far as the clean-up needs it. */
interface StartedProcess {
  child: { exitCode: number | null; kill(signal: NodeJS.Signals): boolean };
  finished: Promise<unknown>;
}

export interface ScratchForProcesses<Server extends StartedProcess> {
  database: ScratchDatabase;
  folder: string;
  env: { DATABASE_URL: string };
  /** Servers the test started: killed, and waited for, after it. */
  servers: Server[];
}

/** For each test of the calling file, a new database of `kind` for the server and the CLI run as processes. */
export function useScratchDatabase<Server extends StartedProcess = StartedProcess>(
  prefix: string,
  kind: BackendKind = 'sqlite',
): ScratchForProcesses<Server> {
  const scratch = { folder: '', env: { DATABASE_URL: '' }, servers: [] } as unknown as ScratchForProcesses<Server>;
  beforeEach(async () => {
    scratch.database = await scratchDatabase(kind, prefix);
    scratch.folder = scratch.database.folder;
    scratch.env = { DATABASE_URL: scratch.database.url };
  });
  afterEach(async () => {
    for (const server of scratch.servers.splice(0)) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.finished;
    }
    await scratch.database.drop();
  });
  return scratch;
}

/** The backend of the in-process test servers (server.ts): TEST_STORE's (test:postgres sets it), or SQLite. */
export const SERVER_BACKEND: BackendKind = serverBackend(process.env.TEST_STORE || 'sqlite');

function serverBackend(named: string): BackendKind {
  const kinds = BACKENDS.map(({ kind }) => kind);
  const kind = kinds.find((one) => one === named);
  if (kind === undefined) throw new Error(`TEST_STORE must be one of ${kinds.join(', ')}, got "${named}"`);
  return kind;
}
