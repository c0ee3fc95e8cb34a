import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { loadServerConfig } from '../src/exit.js';
import { describeDatabase, loadStoreSettings, locateDatabase } from '../src/store/backends.js';

describe('loadConfig', () => {
  it('has the documented defaults, for unset and for empty variables', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '', LOG_LEVEL: '' })).toEqual(loadConfig({}));
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      logFormat: 'auto',
      http: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 5_000,
        idleTimeoutMs: 30_000,
        maxConnections: 1_000,
      },
      rateLimits: { requestsPerKey: 1_000, authFailuresPerAddress: 20, windowSeconds: 60 },
      stopTimeoutMs: 10_000,
      workers: 1,
      metrics: {},
      deprecatedCallsFlushMs: 5000,
      corsOrigins: [],
    });
  });

  it('reads every variable of the server', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'DEBUG',
        LOG_FORMAT: 'Pretty',
        HTTP_REQUEST_TIMEOUT_MS: '20000',
        HTTP_HEADERS_TIMEOUT_MS: '2000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
        HTTP_IDLE_TIMEOUT_MS: '3000',
        HTTP_MAX_CONNECTIONS: '50',
        RATE_LIMIT_REQUESTS: '0',
        RATE_LIMIT_AUTH_FAILURES: '5',
        RATE_LIMIT_WINDOW_SECONDS: '10',
        STOP_TIMEOUT_MS: '2000',
        WORKERS: '4',
        METRICS_PORT: '9464',
        METRICS_TOKEN: 'metrics-token-0123456789',
        DEPRECATED_CALLS_FLUSH_SECONDS: '30',
        CORS_ORIGINS: 'https://app.example, http://127.0.0.1:5173',
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      logLevel: 'debug',
      logFormat: 'pretty',
      http: {
        requestTimeoutMs: 20_000,
        headersTimeoutMs: 2_000,
        keepAliveTimeoutMs: 1_000,
        idleTimeoutMs: 3_000,
        maxConnections: 50,
      },
      rateLimits: { requestsPerKey: 0, authFailuresPerAddress: 5, windowSeconds: 10 },
      stopTimeoutMs: 2_000,
      workers: 4,
      metrics: { port: 9464, token: 'metrics-token-0123456789' },
      deprecatedCallsFlushMs: 30_000,
      corsOrigins: ['https://app.example', 'http://127.0.0.1:5173'],
    });
  });

  it('has the store\'s documented defaults, for the server and for a command', () => {
    const location = { kind: 'sqlite', path: resolve('data/store.db') };
    expect(loadStoreSettings({ DATABASE_URL: '' }, 'server')).toEqual({
      location,
      backends: {
        sqlite: { synchronous: 'FULL', busyTimeoutMs: 20, writeWaitMs: 5_000 },
        postgres: { poolSize: 10, queryTimeoutMs: 7_000, connectionWaitMs: 2_000 },
      },
    });
    expect(loadStoreSettings({}, 'command')).toEqual({
      location,
      backends: {
        sqlite: { synchronous: 'FULL', busyTimeoutMs: 5_000, writeWaitMs: 5_000 },
        postgres: { poolSize: 10, connectionWaitMs: 2_000 },
      },
    });
  });

  it('reads every variable of the store', () => {
    const env = {
      DATABASE_URL: '/tmp/x.db',
      SQLITE_SYNCHRONOUS: 'extra',
      SQLITE_WRITE_WAIT_MS: '250',
      MAX_STREAMED_LISTS: '3',
      DATABASE_POOL_SIZE: '25',
      DATABASE_QUERY_TIMEOUT_MS: '3000',
    };
    expect(loadStoreSettings(env, 'server')).toEqual({
      location: { kind: 'sqlite', path: '/tmp/x.db' },
      maxStreamedLists: 3,
      backends: {
        sqlite: { synchronous: 'EXTRA', busyTimeoutMs: 20, writeWaitMs: 250 },
        postgres: { poolSize: 25, queryTimeoutMs: 3_000, connectionWaitMs: 2_000 },
      },
    });
    // A command takes only what it shares with the server, and fails on no server-only variable.
    expect(loadStoreSettings({ ...env, SQLITE_WRITE_WAIT_MS: 'x', DATABASE_POOL_SIZE: 'x' }, 'command').backends).toEqual({
      sqlite: { synchronous: 'EXTRA', busyTimeoutMs: 5_000, writeWaitMs: 5_000 },
      postgres: { poolSize: 10, connectionWaitMs: 2_000 },
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ HOST: 'a host' }, 'HOST'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LOG_FORMAT: 'colour' }, 'LOG_FORMAT'],
    [{ CORS_ORIGINS: '*' }, 'CORS_ORIGINS'],
    [{ SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS'],
    [{ DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://[::1' }, 'DATABASE_URL'],
    [{ DATABASE_URL: ':memory:' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'file:x.db?mode=ro' }, 'DATABASE_URL'],
    [{ DATABASE_URL: '   ' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'file://remote-host/store.db' }, 'DATABASE_URL'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '0' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_MAX_CONNECTIONS: 'many' }, 'HTTP_MAX_CONNECTIONS'],
    [{ RATE_LIMIT_REQUESTS: '-1' }, 'RATE_LIMIT_REQUESTS'],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, 'RATE_LIMIT_WINDOW_SECONDS'],
    [{ STOP_TIMEOUT_MS: '1.5' }, 'STOP_TIMEOUT_MS'],
    [{ MAX_STREAMED_LISTS: '0' }, 'MAX_STREAMED_LISTS'],
    [{ WORKERS: '0' }, 'WORKERS'],
    [{ WORKERS: 'auto' }, 'WORKERS'],
    [{ METRICS_PORT: 'nine' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '65536' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT'],
    [{ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT'],
    [{ METRICS_TOKEN: 'too-short' }, 'METRICS_TOKEN'],
    [{ METRICS_TOKEN: 'has a space in the middle of it' }, 'METRICS_TOKEN'],
    [{ DEPRECATED_CALLS_FLUSH_SECONDS: '0' }, 'DEPRECATED_CALLS_FLUSH_SECONDS'],
    [{ DEPRECATED_CALLS_FLUSH_SECONDS: '3601' }, 'DEPRECATED_CALLS_FLUSH_SECONDS'],
    [{ DEPRECATED_CALLS_FLUSH_SECONDS: '1.5' }, 'DEPRECATED_CALLS_FLUSH_SECONDS'],
  ])('refuses %o with a message naming %s', (env, variable) => {
    expect(() => loadServerConfig(env)).toThrow(ConfigError);
    expect(() => loadServerConfig(env)).toThrow(variable);
  });
});

// Every numeric variable with a value just outside its range, and the range its message must name.
const NUMERIC_RANGES: [variable: string, refused: string, range: string][] = [
  ['PORT', '65536', 'from 0 to 65535'],
  ['METRICS_PORT', '65536', 'from 0 to 65535'],
  ['SQLITE_WRITE_WAIT_MS', '1000000000', 'from 0 to 999999999'],
  ['RATE_LIMIT_REQUESTS', '1000000000', 'from 0 to 999999999'],
  ['RATE_LIMIT_AUTH_FAILURES', '1000000000', 'from 0 to 999999999'],
  ['RATE_LIMIT_WINDOW_SECONDS', '0', 'from 1 to 999999999'],
  ['HTTP_HEADERS_TIMEOUT_MS', '0', 'from 1 to 999999999'],
  ['HTTP_REQUEST_TIMEOUT_MS', '1000000000', 'from 1 to 999999999'],
  ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '0', 'from 1 to 999999999'],
  ['HTTP_IDLE_TIMEOUT_MS', '1000000000', 'from 1 to 999999999'],
  ['HTTP_MAX_CONNECTIONS', '0', 'from 1 to 999999999'],
  ['STOP_TIMEOUT_MS', '1000000000', 'from 1 to 999999999'],
  ['MAX_STREAMED_LISTS', '0', 'from 1 to 999999999'],
  ['DEPRECATED_CALLS_FLUSH_SECONDS', '3601', 'from 1 to 3600'],
  ['WORKERS', '1025', 'from 1 to 1024'],
  ['DATABASE_POOL_SIZE', '1001', 'from 1 to 1000'],
  ['DATABASE_QUERY_TIMEOUT_MS', '99', 'from 100 to 600000'],
  ['MESSAGE_WEBHOOK_TIMEOUT_MS', '99', 'from 100 to 600000'],
  ['MESSAGE_DELIVERY_ATTEMPTS', '1001', 'from 1 to 1000'],
  ['MESSAGE_DELIVERY_MAX_AGE_SECONDS', '0', 'from 1 to 999999999'],
  ['MESSAGE_DELIVERY_RETRY_MS', '0', 'from 1 to 999999999'],
  ['MESSAGE_DELIVERY_MAX_RETRY_MS', '1000000000', 'from 1 to 999999999'],
  ['MESSAGE_RETENTION_DAYS', '36501', 'from 1 to 36500'],
  ['WEBHOOK_MAX_ENDPOINTS', '1001', 'from 1 to 1000'],
  ['WEBHOOK_DISABLE_AFTER_HOURS', '8761', 'from 1 to 8760'],
  ['WEBHOOK_RETENTION_DAYS', '0', 'from 1 to 365'],
];

describe('the numeric settings', () => {
  it.each(NUMERIC_RANGES)('refuses %s=%s with a message naming the range (%s)', (variable, refused, range) => {
    expect(() => loadServerConfig({ [variable]: refused })).toThrow(
      new ConfigError(`${variable} must be a whole number ${range}, got "${refused}"`),
    );
  });

  it('names the range for a value that is no number at all', () => {
    expect(() => loadConfig({ RATE_LIMIT_REQUESTS: 'lots' })).toThrow(
      'RATE_LIMIT_REQUESTS must be a whole number from 0 to 999999999, got "lots"',
    );
  });

  it('accepts the top of each range', () => {
    const config = loadConfig({
      PORT: '65535',
      RATE_LIMIT_REQUESTS: '999999999',
      HTTP_REQUEST_TIMEOUT_MS: '999999999',
      HTTP_IDLE_TIMEOUT_MS: '999999999',
      DEPRECATED_CALLS_FLUSH_SECONDS: '3600',
      WORKERS: '1024',
    });
    expect(config.port).toBe(65535);
    expect(config.rateLimits.requestsPerKey).toBe(999_999_999);
    expect(config.http.requestTimeoutMs).toBe(999_999_999);
    expect(config.http.idleTimeoutMs).toBe(999_999_999);
    expect(config.deprecatedCallsFlushMs).toBe(3_600_000);
    expect(config.workers).toBe(1024);
  });

  it('covers every variable docs/operating.md documents with a numeric default', () => {
    const readme = readFileSync(new URL('../docs/operating.md', import.meta.url), 'utf8');
    const numeric = [...readme.matchAll(/^\| `([A-Z_]+)` \| `[0-9]+` \|/gm)].map((match) => match[1]);
    expect(numeric.length).toBeGreaterThan(5);
    expect(NUMERIC_RANGES.map(([variable]) => variable)).toEqual(expect.arrayContaining(numeric));
  });
});

describe('the metrics settings', () => {
  it('lets both ports be 0 (each picks a free port of its own)', () => {
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics).toEqual({ port: 0 });
  });

  it('never repeats a refused token in its message', () => {
    const token = 'secret token with spaces';
    expect(() => loadConfig({ METRICS_TOKEN: token })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: token })).not.toThrow(token);
  });
});

describe('locateDatabase', () => {
  it('accepts plain paths and file: URLs as SQLite files', () => {
    const sqlite = (path: string) => ({ kind: 'sqlite', path });
    expect(locateDatabase('/var/lib/store.db')).toEqual(sqlite('/var/lib/store.db'));
    expect(locateDatabase('file:///var/lib/store.db')).toEqual(sqlite('/var/lib/store.db'));
    expect(locateDatabase('file:data/my%20store.db')).toEqual(sqlite(resolve('data/my store.db')));
    expect(locateDatabase('rel/store.db')).toEqual(sqlite(resolve('rel/store.db')));
  });

  it('takes postgres:// and postgresql:// URLs as PostgreSQL, and never repeats a password it refuses', () => {
    const url = 'postgres://orders:s3cret@db.internal:5433/orders?sslmode=require';
    expect(locateDatabase(url)).toEqual({ kind: 'postgres', url });
    expect(locateDatabase('postgresql://db/orders')).toEqual({ kind: 'postgres', url: 'postgresql://db/orders' });
    expect(() => locateDatabase('postgres://orders:s3cret@[bad')).toThrow(ConfigError);
    expect(() => locateDatabase('postgres://orders:s3cret@[bad')).not.toThrow(/s3cret/);
    expect(() => locateDatabase('mysql://u:s3cret@db/orders')).not.toThrow(/s3cret/);
    expect(describeDatabase({ kind: 'postgres', url })).toBe('postgres://orders:***@db.internal:5433/orders?sslmode=require');
  });

  it('names every form it takes when it takes none', () => {
    expect(() => locateDatabase('mysql://db/orders')).toThrow(
      new ConfigError('DATABASE_URL must be a SQLite file path, a file: URL or a postgres:// URL, got "mysql://…"'),
    );
  });
});

describe('the CORS settings', () => {
  it.each([
    ['https://app.example/', 'https://app.example'],
    ['https://app.example/app', 'https://app.example'],
    ['https://APP.example:443', 'https://app.example'],
    ['http://app.example:80', 'http://app.example'],
  ])('refuses %s, which is no exact origin, and names the origin meant (%s)', (origin, meant) => {
    expect(() => loadConfig({ CORS_ORIGINS: origin })).toThrow(
      new ConfigError(
        `CORS_ORIGINS must be a comma-separated list of origins such as https://app.example:8443 (scheme://host[:port], no path), got "${origin}"; did you mean "${meant}"?`,
      ),
    );
  });

  it.each(['app.example', 'ftp://app.example', 'null', 'https://'])('refuses %s', (origin) => {
    expect(() => loadConfig({ CORS_ORIGINS: origin })).toThrow(`got "${origin}"`);
  });

  it('refuses the wildcard, and reads a list with spaces and a trailing comma', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example,*' })).toThrow(
      new ConfigError('CORS_ORIGINS must list each origin; "*" is not accepted'),
    );
    expect(loadConfig({ CORS_ORIGINS: ' https://a.example , http://[::1]:8080, ' }).corsOrigins).toEqual([
      'https://a.example',
      'http://[::1]:8080',
    ]);
  });
});
