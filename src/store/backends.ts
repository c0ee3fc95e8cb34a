// Every backend, in one list: what DATABASE_URL may name, and each backend's settings. openStore, the copy,
// the server, the CLI, the bench and the tests find a backend here and nowhere else, so a new one is one
// folder and one entry below.
import { ConfigError } from '../configError.js';
import { parseWhole } from '../environment.js';
import type { Backend, StoreUse } from './backend.js';
import { postgres } from './postgres/backend.js';
import { sqlite } from './sqlite/backend.js';

/** Every backend; DEFAULT_DATABASE_URL, a path, names a database of the one that takes paths (SQLite). */
export const BACKENDS = [sqlite, postgres] as const;

type Listed = (typeof BACKENDS)[number];

export type BackendKind = Listed['kind'];

/** Where the store is: a database of one of the backends, as its `locate` reads DATABASE_URL. */
export type DatabaseLocation = ReturnType<Listed['locate']>;

/** Each backend's own settings, by kind. */
export type BackendSettings = { [B in Listed as B['kind']]: ReturnType<B['settings']> };

/** A backend with its types forgotten: what only the location's own kind is ever given to. */
type AnyBackend = Backend<string, DatabaseLocation, unknown>;

export const DEFAULT_DATABASE_URL = 'data/store.db';

/** The backend that holds `location`. */
export function backendOf(location: DatabaseLocation): AnyBackend {
  const backend = BACKENDS.find(({ kind }) => kind === location.kind);
  if (!backend) throw new Error(`no store backend is named ${location.kind}`);
  return backend;
}

/**
 * The database `url` names: a URL of one of the backends' schemes (whatever its case), or a path of the
 * backend that takes paths. A mistake is a ConfigError naming `variable`, and never repeating a password.
 */
export function locateDatabase(url: string, variable = 'DATABASE_URL'): DatabaseLocation {
  if (url.trim() === '') throw new ConfigError(`${variable} must not be empty`);
  const lower = url.toLowerCase();
  const byScheme = BACKENDS.find(({ schemes }) => schemes.some((scheme) => lower.startsWith(scheme)));
  if (byScheme) return byScheme.locate(url, variable);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  const byPath = BACKENDS.find(({ takesPaths }) => takesPaths);
  if (scheme === undefined && byPath) return byPath.locate(url, variable);
  const forms = BACKENDS.map(({ urlForm }) => urlForm);
  throw new ConfigError(
    `${variable} must be ${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}, got "${scheme === undefined ? url : `${scheme}://…`}"`,
  );
}

/** The URL that names `location`, as DATABASE_URL would (with its password, if any). */
export function databaseUrl(location: DatabaseLocation): string {
  return backendOf(location).url(location);
}

/** How a database is named to people: a URL without any password it carries. */
export function describeDatabase(location: DatabaseLocation): string {
  return backendOf(location).describe(location);
}

/** What the store is opened with, read from the environment. */
export interface StoreSettings {
  location: DatabaseLocation;
  /** How many long (streamed) order lists may be sent at once; more answer 503. The server's alone. */
  maxStreamedLists?: number;
  /** Every backend's, each read whichever DATABASE_URL names, so that a mistake in any is refused. */
  backends: BackendSettings;
}

/** DATABASE_URL (empty: the default) and the settings of every backend, for the server or a command. */
export function loadStoreSettings(env: NodeJS.ProcessEnv, use: StoreUse): StoreSettings {
  const location = locateDatabase(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  const maxStreamedLists = use === 'server' ? parseWhole(env, 'MAX_STREAMED_LISTS', undefined, 1) : undefined;
  return { location, ...(maxStreamedLists !== undefined && { maxStreamedLists }), backends: backendSettings(env, use) };
}

export function backendSettings(env: NodeJS.ProcessEnv, use: StoreUse): BackendSettings {
  return Object.fromEntries(BACKENDS.map((backend) => [backend.kind, backend.settings(env, use)])) as BackendSettings;
}
