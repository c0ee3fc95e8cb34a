// A real server on a scratch database of the run's backend (storeBackends.ts: a SQLite file in a temporary
// folder, or with TEST_STORE=postgres a database of its own on TEST_DATABASE_URL's PostgreSQL, as npm run
// test:postgres runs it), listening on a free loopback port.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type AppOptions, buildApp } from '../../src/app.js';
import type { RateLimits } from '../../src/config.js';
import { loadContracts } from '../../src/contract/document.js';
import { displayPrefix, generateKey, keyDigest } from '../../src/keys.js';
import { backendSettings, type DatabaseLocation } from '../../src/store/backends.js';
import { openStore } from '../../src/store/open.js';
import { ALL_SCOPES, type AdminStore, type Scopes, type StoredMessage } from '../../src/store/store.js';
import { scratchDatabase, SERVER_BACKEND } from './storeBackends.js';

export interface TestServer {
  baseUrl: string;
  /** The SQLite file; on any other backend, empty. */
  dbPath: string;
  database: DatabaseLocation;
  store: AdminStore;
  app: FastifyInstance;
  /** Every log line the server wrote, as text. */
  logs: string[];
  close(): Promise<void>;
}

export type StartOptions = Pick<
  AppOptions,
  'now' | 'handlers' | 'http' | 'metrics' | 'deprecatedCallsFlushMs' | 'corsOrigins' | 'traces'
> & {
  streamOrdersAbove?: number;
  /** Off unless given: most tests send far more requests, and bad keys, than the default quotas allow. */
  rateLimits?: RateLimits;
  writeWaitMs?: number;
  busyTimeoutMs?: number;
  logLevel?: AppOptions['logLevel'];
  /** An existing database file, to start on again as after a restart; the caller removes it. */
  dbPath?: string;
};

const NO_RATE_LIMITS: RateLimits = { requestsPerKey: 0, authFailuresPerAddress: 0, windowSeconds: 60 };

const contracts = loadContracts();

export async function startServer({
  streamOrdersAbove,
  rateLimits = NO_RATE_LIMITS,
  writeWaitMs,
  busyTimeoutMs = backendSettings({}, 'server').sqlite.busyTimeoutMs,
  logLevel = 'info',
  dbPath: existingDbPath,
  ...options
}: StartOptions = {}): Promise<TestServer> {
  // A file given is SQLite's, whatever the run's backend: the test starts again on what it left.
  const scratch = existingDbPath === undefined ? await scratchDatabase(SERVER_BACKEND, 'store-orders-test-') : undefined;
  const database: DatabaseLocation = scratch?.location ?? { kind: 'sqlite', path: existingDbPath as string };
  const dbPath = database.kind === 'sqlite' ? database.path : '';
  const store = await openStore(database, {
    ...(streamOrdersAbove !== undefined && { streamOrdersAbove }),
    settings: { sqlite: { synchronous: 'FULL', busyTimeoutMs, ...(writeWaitMs !== undefined && { writeWaitMs }) } },
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({ contracts, store, logLevel, logStream, rateLimits, ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server did not listen on TCP');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    dbPath,
    database,
    store,
    app,
    logs,
    async close() {
      await app.close();
      await store.close();
      await scratch?.drop();
    },
  };
}

/** Whether this run's servers are on SQLite, for the tests of its own mechanisms: its file, its write lock. */
export const ON_SQLITE = SERVER_BACKEND === 'sqlite';

/** What another process sees of a server's database: its messages, through a store of its own. */
export async function storedMessages(server: TestServer): Promise<StoredMessage[]> {
  const other = await openStore(server.database);
  try {
    return await other.messages.listMessages();
  } finally {
    await other.close();
  }
}

/** A new key for a new (or existing) account, made the way the CLI makes it: with every scope unless told. */
export async function createKey(
  store: AdminStore,
  accountName = 'acme',
  scopes: Scopes = ALL_SCOPES,
): Promise<{ key: string; keyId: number }> {
  const key = generateKey();
  return { key, keyId: await addKey(store, key, accountName, scopes) };
}

/** Stores a given key, as the CLI would store it, so that one key can work on several servers. */
export async function addKey(store: AdminStore, key: string, accountName = 'acme', scopes: Scopes = ALL_SCOPES): Promise<number> {
  const account = (await store.keys.findAccount(accountName)) ?? (await store.keys.createAccount(accountName));
  return (await store.keys.createKey({ accountId: account.id, digest: keyDigest(key), displayPrefix: displayPrefix(key), scopes })).id;
}

export interface ServerFixture {
  server: TestServer;
  key: string;
  keyId: number;
}

/** A fresh server on a fresh file, and one key, for each test of the calling file. */
export function useServer(): ServerFixture {
  return serverFixture(beforeEach, afterEach);
}

/**
 * One server and key for all the tests of the calling file, for a file of many short tests whose cases each
 * make the records they need (a fresh server costs about a second, two on PostgreSQL).
 */
export function useSharedServer(): ServerFixture {
  return serverFixture(beforeAll, afterAll);
}

function serverFixture(before: typeof beforeEach, after: typeof afterEach): ServerFixture {
  const fixture = {} as ServerFixture;
  before(async () => {
    fixture.server = await startServer();
    ({ key: fixture.key, keyId: fixture.keyId } = await createKey(fixture.server.store));
  });
  after(() => fixture.server.close());
  return fixture;
}
