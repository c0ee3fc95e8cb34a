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
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      databasePath: '/tmp/x.db',
      logLevel: 'debug',
      synchronous: 'EXTRA',
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
  ])('refuses %o with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
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
