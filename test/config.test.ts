import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../src/config.js';

describe('loadConfig', () => {
  it('has the documented defaults, for unset and for empty variables', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '', LOG_LEVEL: '' })).toEqual(loadConfig({}));
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      databasePath: resolve('data/store.db'),
      logLevel: 'info',
      synchronous: 'FULL',
      metrics: {},
      deprecatedCallsFlushMs: 5000,
    });
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        DATABASE_URL: '/tmp/x.db',
        LOG_LEVEL: 'DEBUG',
        SQLITE_SYNCHRONOUS: 'extra',
        METRICS_PORT: '9464',
        METRICS_TOKEN: 'metrics-token-0123456789',
        DEPRECATED_CALLS_FLUSH_SECONDS: '30',
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      databasePath: '/tmp/x.db',
      logLevel: 'debug',
      synchronous: 'EXTRA',
      metrics: { port: 9464, token: 'metrics-token-0123456789' },
      deprecatedCallsFlushMs: 30_000,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ HOST: 'a host' }, 'HOST'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS'],
    [{ DATABASE_URL: 'postgres://db/x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: ':memory:' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'file:x.db?mode=ro' }, 'DATABASE_URL'],
    [{ DATABASE_URL: '   ' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'file://remote-host/store.db' }, 'DATABASE_URL'],
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
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
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

describe('parseDatabaseUrl', () => {
  it('accepts plain paths and file: URLs', () => {
    expect(parseDatabaseUrl('/var/lib/store.db')).toBe('/var/lib/store.db');
    expect(parseDatabaseUrl('file:///var/lib/store.db')).toBe('/var/lib/store.db');
    expect(parseDatabaseUrl('file:data/my%20store.db')).toBe(resolve('data/my store.db'));
    expect(parseDatabaseUrl('rel/store.db')).toBe(resolve('rel/store.db'));
  });
});
