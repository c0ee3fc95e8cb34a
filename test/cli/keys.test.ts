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
      `Created key 1 (${result.stdout.slice(0, 7)}…) for account "acme", with every scope; it never expires.\n` +
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
      { id: 1, account: 'acme', displayPrefix: `${key.slice(0, 7)}…`, scopes: '*', createdAt: expect.any(String) },
    ]);
  });

  it('create --scopes makes a key that may do only what they allow, listed with them, and says so', async () => {
    const made = await fixture.cli('keys', 'create', '--account', 'acme', '--scopes', 'messages:write, orders:read');
    expect(made.code).toBe(0);
    expect(made.stderr).toContain('with the scopes orders:read, messages:write; it never expires.');
    const key = made.stdout.trim();
    expect((await listOrders(key)).status).toBe(200);
    const cancel = await rawRequest(`${fixture.server.baseUrl}/v1/store/orders/1`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(cancel.status).toBe(403);
    const [listed] = await fixture.cliJson<{ scopes: unknown }[]>('keys', 'list');
    expect(listed?.scopes).toEqual(['orders:read', 'messages:write']);
  });

  it("create --scopes '' makes a key of no scope, which every operation that needs one refuses", async () => {
    const made = await fixture.cli('keys', 'create', '--account', 'acme', '--scopes', '');
    expect(made.code).toBe(0);
    expect(made.stderr).toContain('with no scope;');
    expect((await listOrders(made.stdout.trim())).status).toBe(403);
    const [listed] = await fixture.cliJson<{ scopes: unknown }[]>('keys', 'list');
    expect(listed?.scopes).toEqual([]);
  });

  it('create --expires-in and --expires-at make keys that expire then, listed and said so', async () => {
    const before = Date.now();
    const made = await fixture.cli('keys', 'create', '--account', 'acme', '--expires-in', '90d');
    expect(made.code).toBe(0);
    expect((await listOrders(made.stdout.trim())).status).toBe(200);
    const at = await fixture.cli('keys', 'create', '--account', 'acme', '--expires-at', '2099-03-31T20:00:00+02:00');
    expect(at.stderr).toContain('it expires at 2099-03-31T18:00:00.000Z.');
    const [inDays, atTime] = await fixture.cliJson<{ expiresAt: string }[]>('keys', 'list');
    const days = (Date.parse(inDays?.expiresAt as string) - before) / 86_400_000;
    expect(days >= 90 && days < 90.01).toBe(true);
    expect(made.stderr).toContain(`it expires at ${inDays?.expiresAt}.`);
    expect(atTime?.expiresAt).toBe('2099-03-31T18:00:00.000Z');
  });

  it('roll prints the new key alone; both work until the old one ends, which it says, and 0 revokes the old at once', async () => {
    const old = await fixture.newKey();
    // As a process: roll's run of the real CLI, for its stdout and stderr.
    const rolled = await fixture.cliProcess('keys', 'roll', old);
    expect(rolled.code).toBe(0);
    expect(rolled.stdout).toMatch(/^sok_[0-9A-Za-z]{39}\n$/);
    const successor = rolled.stdout.trim();
    const [oldListed, newListed] = await fixture.cliJson<{ id: number; expiresAt?: string; scopes: unknown }[]>('keys', 'list');
    const hours = (Date.parse(oldListed?.expiresAt as string) - Date.now()) / 3_600_000;
    expect(hours > 23.9 && hours <= 24).toBe(true);
    expect(rolled.stderr).toBe(
      `Key 1 (${old.slice(0, 7)}…) works until ${oldListed?.expiresAt}.\n` +
        `Rolled it into key 2 (${successor.slice(0, 7)}…) for account "acme", with every scope; it never expires.\n` +
        'It is shown once and never again: store it now.\n',
    );
    expect(newListed).toMatchObject({ id: 2, scopes: '*' });
    expect([(await listOrders(old)).status, (await listOrders(successor)).status]).toEqual([200, 200]);
    const now = await fixture.cli('keys', 'roll', '2', '--old-expires-in', '0');
    expect(now.stderr).toContain('Key 2 (');
    expect(now.stderr).toContain(') is revoked.');
    expect([(await listOrders(successor)).status, (await listOrders(now.stdout.trim())).status]).toEqual([401, 200]);
    const again = await fixture.cli('keys', 'roll', successor);
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toMatch(/the key is revoked or expired/);
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
    [['keys', 'create', '--account', 'a', '--scopes', 'orders:delete'], 2, /unknown scope "orders:delete"; the scopes: orders:read, orders:write, messages:read, messages:write/],
    [['keys', 'create', '--account', 'a', '--scopes', 'orders:read,'], 2, /unknown scope ""/],
    [['keys', 'create', '--account', 'a', '--expires-in', '90'], 2, /--expires-in must be a whole number of days, hours, minutes or seconds \(90d, 12h, 30m, 45s\), at most 36500d; got "90"/],
    [['keys', 'create', '--account', 'a', '--expires-in', '0s'], 2, /--expires-in must be/],
    [['keys', 'create', '--account', 'a', '--expires-in', '0'], 2, /--expires-in must be/],
    [['keys', 'create', '--account', 'a', '--expires-in', '36501d'], 2, /at most 36500d/],
    [['keys', 'create', '--account', 'a', '--expires-at', '2099-01-01'], 2, /--expires-at must be a date and time with its offset/],
    [['keys', 'create', '--account', 'a', '--expires-at', '2001-01-01T00:00:00Z'], 2, /--expires-at is not in the future: 2001-01-01T00:00:00.000Z/],
    [['keys', 'create', '--account', 'a', '--expires-in', '1d', '--expires-at', '2099-01-01T00:00:00Z'], 2, /not both/],
    [['keys', 'roll', '42'], 1, /no such key/],
    [['keys', 'roll'], 2, /exactly one KEY_OR_ID/],
    [['keys', 'roll', '1', '--old-expires-in', '1w'], 2, /--old-expires-in must be .*, or 0\), at most/],
    [['keys', 'rotate'], 2, /keys: unknown command "rotate"/],
  ])('%j exits %i with a clear message', async (args, code, message) => {
    const result = await fixture.cli(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^store-orders: /);
  });
});
