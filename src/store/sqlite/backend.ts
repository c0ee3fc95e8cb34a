// SQLite, the default backend: one file on this machine, named by a path or a file: URL, shared by the
// server's processes and the CLI. Its entry in backends.ts.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../configError.js';
import { parseChoice, parseWhole } from '../../environment.js';
import type { Backend } from '../backend.js';
import { SYNCHRONOUS_MODES, type SqliteSettings } from './settings.js';

export interface SqliteLocation {
  kind: 'sqlite';
  /** Absolute. */
  path: string;
}

/** How long a statement blocks the thread waiting for another process's lock: a command's. */
const BUSY_TIMEOUT_MS = 5000;
/**
 * The server's connection blocks only briefly: its writes wait for a lock between turns of the event loop
 * instead (see groupCommit.ts), so reads go on meanwhile.
 */
export const SERVER_BUSY_TIMEOUT_MS = 20;
const WRITE_WAIT_MS = 5000;

export const sqlite: Backend<'sqlite', SqliteLocation, SqliteSettings> = {
  kind: 'sqlite',
  schemes: ['file:'],
  takesPaths: true,
  urlForm: 'a SQLite file path, a file: URL',
  locate,
  url: (location) => location.path,
  describe: (location) => location.path,
  settings: (env, use) => ({
    synchronous: parseChoice('SQLITE_SYNCHRONOUS', env.SQLITE_SYNCHRONOUS?.toUpperCase(), SYNCHRONOUS_MODES, 'FULL'),
    busyTimeoutMs: use === 'server' ? SERVER_BUSY_TIMEOUT_MS : BUSY_TIMEOUT_MS,
    // The server's alone: a command's write waits as long as its statements do.
    writeWaitMs: use === 'server' ? parseWhole(env, 'SQLITE_WRITE_WAIT_MS', WRITE_WAIT_MS, 0) : WRITE_WAIT_MS,
  }),
  // Loaded only when asked for, better-sqlite3 with them: a server or a command on PostgreSQL never needs
  // them, nor does any command but copy the copy's code.
  open: async (location, settings, options) =>
    (await import('./repositories.js')).openRepositories(location.path, settings, options),
  exportFrom: async (location) => (await import('./copy.js')).exportFrom(location.path),
  importInto: async (location, settings) => (await import('./copy.js')).importInto(location.path, settings),
};

/** A plain path, or a `file:` URL (`file:///abs/path.db`, `file:relative.db`) without query options. */
function locate(url: string, variable: string): SqliteLocation {
  let path = url;
  if (/^file:/i.test(url)) {
    if (url.includes('?')) throw new ConfigError(`${variable} must not carry query options, got "${url}"`);
    path = /^file:\/\//i.test(url) ? fileUrlToPath(url, variable) : decodeURIComponent(url.slice('file:'.length));
  }
  if (path === '' || path === ':memory:') {
    throw new ConfigError(`${variable} must name a file: the server and the CLI share it, got "${url}"`);
  }
  return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(path) };
}

function fileUrlToPath(url: string, variable: string): string {
  try {
    return fileURLToPath(url);
  } catch {
    throw new ConfigError(`${variable} is not a valid file: URL, got "${url}"`);
  }
}
