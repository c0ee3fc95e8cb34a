import { describe, expect, it } from 'vitest';
import { useCliFixture } from '../support/cliFixture.js';
import { rawRequest } from '../support/http.js';

const fixture = useCliFixture();
const listOrders = (key: string) =>
  rawRequest(`${fixture.server.baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });

describe('store-orders keys', () => {
  it('create prints the new key alone on stdout, and it works at once against the running server', async () => {
    // As a process: the family's run of the real CLI.
    const result = await fixture.cliProcess('keys', 'create', '--account', 'acme');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sok_[0-9A-Za-z]{39}\n$/);
    expect((await listOrders(result.stdout.trim())).status).toBe(200);
  });

  it('create says what it made on stderr, which a pipe (`| tail -n 1`, `$(…)`) leaves on the terminal', async () => {
    const result = await fixture.cli('keys', 'create', '--account', 'acme');
    expect(result.stderr).toBe(
      `Created key 1 (${result.stdout.slice(0, 7)}…) for account "acme".\n` +
        'It is shown once and never again: store it now.\n',
    );
  });

  it('create makes the account when it is missing, and reuses it when it exists', async () => {
    await fixture.newKey('globex');
    await fixture.newKey('globex');
    const keys = await fixture.cliJson<{ account: string }[]>('keys', 'list');
    expect(keys.map((key) => key.account)).toEqual(['globex', 'globex']);
  });

  it('list shows ids, accounts and prefixes, never the keys', async () => {
    const key = await fixture.newKey();
    const result = await fixture.cli('keys', 'list');
    expect(result.stdout).not.toContain(key);
    expect(JSON.parse(result.stdout)).toEqual([
      { id: 1, account: 'acme', displayPrefix: `${key.slice(0, 7)}…`, createdAt: expect.any(String) },
    ]);
  });

  it('revoke by key makes the very next request fail', async () => {
    const key = await fixture.newKey();
    expect((await listOrders(key)).status).toBe(200);
    const result = await fixture.cli('keys', 'revoke', key);
    expect(result.code).toBe(0);
    expect((await listOrders(key)).status).toBe(401);
  });

  it('revoke by id works, and says when the key was already revoked', async () => {
    const key = await fixture.newKey();
    expect((await fixture.cli('keys', 'revoke', '1')).stdout).toContain('Key revoked');
    expect((await listOrders(key)).status).toBe(401);
    const again = await fixture.cli('keys', 'revoke', '1');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already revoked');
    const [listed] = await fixture.cliJson<{ revokedAt?: string }[]>('keys', 'list');
    expect(listed?.revokedAt).toEqual(expect.any(String));
  });

  it.each([
    [['keys', 'revoke', '42'], 1, /no such key/],
    [['keys', 'revoke', 'not-a-key'], 2, /KEY_OR_ID must be/],
    [['keys', 'revoke'], 2, /exactly one KEY_OR_ID/],
    [['keys', 'create'], 2, /--account NAME/],
    [['keys', 'create', '--account'], 2, /--account needs a value/],
    [['keys', 'create', '--account', 'a', '--admin'], 2, /unknown option --admin/],
    [['keys', 'rotate'], 2, /keys: unknown command "rotate"/],
  ])('%j exits %i with a clear message', async (args, code, message) => {
    const result = await fixture.cli(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^store-orders: /);
  });
});
