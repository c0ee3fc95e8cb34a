// A PostgreSQL password is never printed, wherever DATABASE_URL carries it: in the userinfo, or as the
// `password` or `sslpassword` query option (node-postgres reads the query too, and prefers it).
import { describe, expect, it } from 'vitest';
import { describeDatabase } from '../../src/store/backends.js';
import { runCli, spawnServer } from '../support/processes.js';
import { scratchDatabase, storeBackend } from '../support/storeBackends.js';

const SECRETS = ['s3cret-userinfo', 's3cret-query', 's3cret-ssl'];
const withSecrets = (base: string) => {
  const url = new URL(base);
  url.username ||= 'postgres';
  url.password = SECRETS[0] as string;
  url.searchParams.set('password', SECRETS[1] as string);
  url.searchParams.set('sslpassword', SECRETS[2] as string);
  return url.toString();
};
const expectNoSecret = (text: string) => {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
};

describe('a PostgreSQL password in DATABASE_URL', () => {
  it('is masked in every form a URL can carry it, and nothing else of the URL is', () => {
    const describe = (url: string) => describeDatabase({ kind: 'postgres', url });
    expect(describe('postgres://orders:s3cret@db:5433/store?sslmode=require&password=s3cret&sslpassword=s3cret')).toBe(
      'postgres://orders:***@db:5433/store?sslmode=require&password=***&sslpassword=***',
    );
    expect(describe('postgres://db/store?Password=s3cret&password=again&PASSWORD=s3cret')).not.toMatch(/s3cret|again/);
    expect(describe('postgres://db/store?password=s3%26cret')).toBe('postgres://db/store?password=***');
    expect(describe('postgresql://db/store?sslmode=verify-full')).toBe('postgresql://db/store?sslmode=verify-full');
  });

  it('is not printed by the server that cannot open the database, nor by the CLI', async () => {
    const env = { DATABASE_URL: withSecrets('postgres://127.0.0.1:1/store') };
    const server = await spawnServer(env, { init: false }).catch((error: Error) => error.message);
    expect(server).toMatch(/server exited with 1/);
    expectNoSecret(server as string);
    for (const command of [['init'], ['orders', 'list'], ['keys', 'create', '--account', 'acme']]) {
      const result = await runCli(command, env);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('password=***');
      expectNoSecret(result.stdout + result.stderr);
    }
    const copy = await runCli(['copy', '--to', env.DATABASE_URL], { DATABASE_URL: '/nonexistent/store.db' });
    expect(copy.code).not.toBe(0);
    expectNoSecret(copy.stdout + copy.stderr);
  });

  it.skipIf(!storeBackend('postgres').available)('is not printed in the log of a server that opens the database', async () => {
    // This PostgreSQL trusts local connections, so it takes any password.
    const database = await scratchDatabase('postgres');
    const server = await spawnServer({ DATABASE_URL: withSecrets(database.url) });
    try {
      expect(server.output.stdout).toContain('database opened');
      expectNoSecret(server.output.stdout + server.output.stderr);
    } finally {
      server.child.kill('SIGTERM');
      const finished = await server.finished;
      expectNoSecret(finished.stdout + finished.stderr);
      await database.drop();
    }
  });
});
