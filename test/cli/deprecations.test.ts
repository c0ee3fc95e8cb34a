import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/commandLine.js';
import { apiClient } from '../support/http.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';

interface Report {
  operationId: string;
  deprecatedAt: string;
  sunsetAt?: string;
  callers: { account: string; firstCallAt: string; lastCallAt: string; count: number }[];
}

let folder: string;
let env: { DATABASE_URL: string };
let server: ServerProcess | undefined;
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-deprecations-'));
  env = { DATABASE_URL: join(folder, 'store.db') };
  expect((await runCliInProcess(['init'], env)).code).toBe(0);
});
afterEach(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.finished;
  }
  server = undefined;
  rmSync(folder, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<string> {
  const result = await runCliInProcess(args, env);
  if (result.code !== 0) throw new Error(`store-orders ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

async function report(): Promise<Report[]> {
  return JSON.parse(await cli('deprecations')) as Report[];
}

async function newKey(account: string): Promise<string> {
  return (await cli('keys', 'create', '--account', account)).trim();
}

async function getPet(key: string | undefined, petId: number): Promise<number> {
  const { response } = await apiClient(server?.baseUrl as string, key).GET('/pets/{petId}', {
    params: { path: { petId } },
  });
  return response.status;
}

async function stop(): Promise<void> {
  server?.child.kill('SIGTERM');
  expect((await server?.finished)?.code).toBe(0);
}

describe('store-orders deprecations', () => {
  it('names each deprecated operation with its deprecation and sunset from the contract', async () => {
    expect(await report()).toEqual([
      {
        operationId: 'getPetById',
        deprecatedAt: '2026-01-01T00:00:00.000Z',
        sunsetAt: '2027-06-30T23:59:59.000Z',
        callers: [],
      },
    ]);
    expect(await cli('deprecations', 'list')).toBe(await cli('deprecations'));
  });

  it('after real calls, lists the accounts that made them, written when the server stops (SIGTERM)', async () => {
    const acme = await newKey('acme');
    const globex = await newKey('globex');
    await cli('pets', 'add', '--name', 'Rex');
    // Flushes are an hour apart: only the stop can write these calls.
    server = await spawnServer({ ...env, DEPRECATED_CALLS_FLUSH_SECONDS: '3600' });
    const started = new Date().toISOString();

    expect(await getPet(acme, 1)).toBe(200);
    expect(await getPet(acme, 2)).toBe(404);
    expect(await getPet(acme, 1)).toBe(200);
    expect(await getPet(globex, 1)).toBe(200);
    // Without a valid key there is no account to name: counted by the metric alone.
    expect(await getPet(undefined, 1)).toBe(401);
    expect(await getPet('sok_not-a-key', 1)).toBe(401);
    const { response } = await apiClient(server.baseUrl, acme).GET('/store/orders');
    expect(response.status).toBe(200);
    const finished = new Date().toISOString();

    expect((await report())[0]?.callers).toEqual([]);
    await stop();

    const [getPetById] = await report();
    expect(
      getPetById?.callers.map(({ account, count }) => ({ account, count })).sort((a, b) => b.count - a.count),
    ).toEqual([
      { account: 'acme', count: 3 },
      { account: 'globex', count: 1 },
    ]);
    for (const { firstCallAt, lastCallAt } of getPetById?.callers ?? []) {
      expect(firstCallAt >= started && firstCallAt <= lastCallAt && lastCallAt <= finished).toBe(true);
    }
  });

  it('writes the calls every DEPRECATED_CALLS_FLUSH_SECONDS while the server runs, adding up across runs', async () => {
    const acme = await newKey('acme');
    await cli('pets', 'add', '--name', 'Rex');
    server = await spawnServer({ ...env, DEPRECATED_CALLS_FLUSH_SECONDS: '1' });
    expect(await getPet(acme, 1)).toBe(200);
    expect(await getPet(acme, 1)).toBe(200);

    // Until the server's own timer has written both, in one flush or in two a second apart (the calls may
    // fall on either side of one); the suite's time-out is the hang guard.
    let callers: Report['callers'] = [];
    while ((callers[0]?.count ?? 0) < 2 && server.child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      callers = (await report())[0]?.callers ?? [];
    }
    expect(server.child.exitCode).toBe(null);
    expect(callers).toMatchObject([{ account: 'acme', count: 2 }]);
    const firstCallAt = callers[0]?.firstCallAt;

    await stop();
    server = await spawnServer({ ...env, DEPRECATED_CALLS_FLUSH_SECONDS: '3600' });
    expect(await getPet(acme, 1)).toBe(200);
    await stop();
    const [after] = (await report())[0]?.callers ?? [];
    expect(after).toMatchObject({ account: 'acme', count: 3, firstCallAt });
    expect(after && after.lastCallAt > after.firstCallAt).toBe(true);
  });

  it('refuses other verbs and arguments with exit 2', async () => {
    // As a process: the family's run of the real CLI.
    const verb = await runCli(['deprecations', 'getPetById'], env);
    expect(verb).toMatchObject({ code: 2, stdout: '' });
    expect(verb.stderr).toMatch(/deprecations: unknown command "getPetById"/);
    const argument = await runCliInProcess(['deprecations', 'list', 'getPetById'], env);
    expect(argument.code).toBe(2);
    expect(argument.stderr).toMatch(/deprecations list: unexpected argument "getPetById"/);
  });
});
