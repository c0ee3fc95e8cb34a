// DATABASE_URL: which store, and where. Shared by the configuration and the store factory (store/open.ts),
// which must not depend on each other.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './configError.js';

/** Where the store is: a SQLite file, or a PostgreSQL database shared by any number of servers. */
export type DatabaseLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/**
 * `postgres://` or `postgresql://` names a PostgreSQL database; anything else is a SQLite file: a plain path
 * or a `file:` URL (`file:///abs/path.db`, `file:relative.db`), without query options.
 */
export function parseDatabaseUrl(raw: string): DatabaseLocation {
  if (raw.trim() === '') throw new ConfigError('DATABASE_URL must not be empty');
  if (/^postgres(?:ql)?:\/\//i.test(raw)) {
    // The URL may carry a password: the message must not repeat it.
    if (!URL.canParse(raw)) throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    return { kind: 'postgres', url: raw };
  }
  let path = raw;
  if (raw.startsWith('file:')) {
    if (raw.includes('?')) throw new ConfigError(`DATABASE_URL must not carry query options, got "${raw}"`);
    path = raw.startsWith('file://') ? safeFileUrlToPath(raw) : decodeURIComponent(raw.slice('file:'.length));
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new ConfigError(
      `DATABASE_URL must be a SQLite file path, a file: URL or a postgres:// URL, got "${raw.split('://')[0]}://…"`,
    );
  }
  if (path === '' || path === ':memory:') {
    throw new ConfigError(`DATABASE_URL must name a file: the server and the CLI share it, got "${raw}"`);
  }
  return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(path) };
}

function safeFileUrlToPath(raw: string): string {
  try {
    return fileURLToPath(raw);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid file: URL, got "${raw}"`);
  }
}

/**
 * The query options of a PostgreSQL URL that carry a secret. node-postgres reads `password` from the query
 * too (and prefers it to the one in the userinfo), and `sslpassword` unlocks the client's TLS key.
 */
const SECRET_OPTIONS = new Set(['password', 'sslpassword']);

/** How a database is named to people: a PostgreSQL URL without any password it carries. */
export function describeDatabase(database: DatabaseLocation): string {
  if (database.kind === 'sqlite') return database.path;
  const url = new URL(database.url);
  if (url.password !== '') url.password = '***';
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_OPTIONS.has(name.toLowerCase())) url.searchParams.set(name, '***');
  }
  return url.toString();
}
