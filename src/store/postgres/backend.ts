// PostgreSQL: one database shared by any number of server processes, named by a postgres:// URL. Its entry
// in backends.ts. The driver is loaded only when a database of it is opened: a server on SQLite never
// loads it.
import { ConfigError } from '../../configError.js';
import { parseWhole } from '../../environment.js';
import type { Backend } from '../backend.js';
import type { PostgresSettings } from './repositories.js';

export interface PostgresLocation {
  kind: 'postgres';
  url: string;
}

const POOL_SIZE = 10;
/** Above the write functions' own lock waits (migration 5), so that contention ends in PostgreSQL's own error. */
const QUERY_TIMEOUT_MS = 7_000;
const CONNECTION_WAIT_MS = 2_000;

/**
 * The query options of a URL that carry a secret. node-postgres reads `password` from the query too (and
 * prefers it to the one in the userinfo), and `sslpassword` unlocks the client's TLS key.
 */
const SECRET_OPTIONS = new Set(['password', 'sslpassword']);

export const postgres: Backend<'postgres', PostgresLocation, PostgresSettings> = {
  kind: 'postgres',
  schemes: ['postgres://', 'postgresql://'],
  takesPaths: false,
  urlForm: 'a postgres:// URL',
  locate: (url, variable) => {
    // The URL may carry a password: the message must not repeat it.
    if (!URL.canParse(url)) throw new ConfigError(`${variable} is not a valid postgres:// URL`);
    return { kind: 'postgres', url };
  },
  url: (location) => location.url,
  describe: ({ url }) => {
    const named = new URL(url);
    if (named.password !== '') named.password = '***';
    for (const name of new Set(named.searchParams.keys())) {
      if (SECRET_OPTIONS.has(name.toLowerCase())) named.searchParams.set(name, '***');
    }
    return named.toString();
  },
  // The server's alone: a command needs few connections, and an import may rightly take long.
  settings: (env, use) =>
    use === 'server'
      ? {
          poolSize: parseWhole(env, 'DATABASE_POOL_SIZE', POOL_SIZE, 1, 1000),
          queryTimeoutMs: parseWhole(env, 'DATABASE_QUERY_TIMEOUT_MS', QUERY_TIMEOUT_MS, 100, 600_000),
          connectionWaitMs: CONNECTION_WAIT_MS,
        }
      : { poolSize: POOL_SIZE, connectionWaitMs: CONNECTION_WAIT_MS },
  open: async (location, settings, options) =>
    (await import('./repositories.js')).openRepositories(location.url, settings, options),
  exportFrom: async (location, settings) => (await import('./copy.js')).exportFrom(location.url, settings),
  importInto: async (location, settings) => (await import('./copy.js')).importInto(location.url, settings),
};
