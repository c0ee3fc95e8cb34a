import { describe, expect, it } from 'vitest';
import { useCliFixture } from '../support/cliFixture.js';
import { runCliInProcess } from '../support/commandLine.js';
import { apiClient } from '../support/http.js';

const fixture = useCliFixture();

describe('store-orders accounts create', () => {
  it('creates an account and refuses a second one with the same name', async () => {
    expect(await fixture.cliJson('accounts', 'create', 'acme')).toMatchObject({ id: 1, name: 'acme' });
    // As a process: the family's run of the real CLI.
    const again = await fixture.cliProcess('accounts', 'create', 'acme');
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/^store-orders: account "acme" already exists/);
  });

  it('refuses a missing or empty name', async () => {
    expect((await fixture.cli('accounts', 'create')).code).toBe(2);
    expect((await fixture.cli('accounts', 'create', '  ')).code).toBe(2);
  });
});

describe('store-orders pets add', () => {
  it('prints the pet, which the API then returns', async () => {
    // As a process: the family's run of the real CLI.
    const added = await fixture.cliProcess('pets', 'add', '--name', 'Rex');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const pet = JSON.parse(added.stdout) as { id: number; name: string };
    expect(pet).toEqual({ id: 1, name: 'Rex' });
    const key = await fixture.newKey();
    const { data } = await apiClient(fixture.server.baseUrl, key).GET('/pets/{petId}', {
      params: { path: { petId: 1 } },
    });
    expect(data).toEqual(pet);
  });

  it('refuses a missing name', async () => {
    const result = await fixture.cli('pets', 'add');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--name NAME/);
  });
});

describe('store-orders messages list', () => {
  it('prints the messages sent through the API, with the name of the account that sent each', async () => {
    const key = await fixture.newKey();
    const { data } = await apiClient(fixture.server.baseUrl, key).POST('/messages', {
      body: { message: 'hello' },
    });
    const messages = await fixture.cliJson('messages', 'list');
    expect(messages).toEqual([
      {
        id: data?.id,
        account: 'acme',
        message: 'hello',
        status: 'queued',
        createdAt: data?.createdAt,
        updatedAt: data?.createdAt,
        attempts: 0,
      },
    ]);
  });
});

describe('store-orders itself', () => {
  it('prints help and exits 0', async () => {
    const result = await fixture.cli('help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('keys create --account NAME');
  });

  it.each([
    [['frobnicate'], /^store-orders: unknown command "frobnicate"/],
    [['orders', 'delete'], /^store-orders: orders: unknown command "delete"/],
    [['messages'], /^store-orders: messages: missing command: list/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await fixture.cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('honours DATABASE_URL as a file: URL', async () => {
    const url = `file://${fixture.server.dbPath}`;
    const result = await runCliInProcess(['pets', 'add', '--name', 'Tom'], { DATABASE_URL: url });
    expect(result.code).toBe(0);
    expect(await fixture.server.store.pets.findPet(1)).toEqual({ id: 1, name: 'Tom' });
  });

  it('refuses a bad DATABASE_URL with a clear message', async () => {
    const result = await runCliInProcess(['orders', 'list'], { DATABASE_URL: 'mysql://db/store' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL must be a SQLite file path/);
  });

  it('names a PostgreSQL URL without its password when it cannot open it', async () => {
    const result = await runCliInProcess(['orders', 'list'], { DATABASE_URL: 'postgres://orders:s3cret@127.0.0.1:1/store' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot open database postgres://orders:***@127.0.0.1:1/store: connect ECONNREFUSED');
    expect(result.stderr).not.toContain('s3cret');
  });
});
