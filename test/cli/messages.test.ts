// `store-orders messages list --status S --limit N` and `messages retry ID`: what the operator sees of the
// delivery, and how a failed message goes back in the queue. The messages are settled here as a server's
// delivery would settle them (test/delivery/ delivers them for real).
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/store/store.js';
import { useCliFixture } from '../support/cliFixture.js';
import { apiClient } from '../support/http.js';

const fixture = useCliFixture();

/** Sends `count` messages through the API; their ids in order. */
async function send(count: number): Promise<string[]> {
  const client = apiClient(fixture.server.baseUrl, await fixture.newKey());
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { data } = await client.POST('/messages', { body: { message: `message ${i}` } });
    ids.push(data?.id as string);
  }
  return ids;
}

/** Claims every queued message, as a server would, and fails the first, delivers the second. */
async function failFirstDeliverSecond([first, second]: string[]): Promise<void> {
  const { delivery } = fixture.server.store;
  const now = new Date().toISOString();
  await delivery.claimMessages({ owner: 'a server', now, leaseUntil: new Date(Date.now() + 60_000).toISOString(), limit: 10 });
  await delivery.settleMessages('a server', [
    { id: first as string, outcome: 'failed', error: 'the endpoint answered HTTP 500', at: now },
    { id: second as string, outcome: 'delivered', at: now },
  ]);
}

describe('store-orders messages list', () => {
  it('lists the messages of one status, the first N, oldest first, with their attempts and last error', async () => {
    const ids = await send(4);
    await failFirstDeliverSecond(ids);
    const listed = async (...args: string[]) => (await fixture.cliJson<StoredMessage[]>('messages', 'list', ...args));
    const failed = await listed('--status', 'failed');
    expect(failed).toEqual([
      expect.objectContaining({ id: ids[0], status: 'failed', attempts: 1, lastError: 'the endpoint answered HTTP 500' }),
    ]);
    expect((await listed('--status', 'delivered')).map(({ id }) => id)).toEqual([ids[1]]);
    expect((await listed('--status', 'queued', '--limit', '1')).map(({ id }) => id)).toEqual([ids[2]]);
    expect((await listed('--limit', '3')).map(({ id }) => id)).toEqual(ids.slice(0, 3));
    // Released by the claim above: back in the queue with its attempt given back.
    expect((await listed('--status', 'queued'))[1]).toMatchObject({ id: ids[3], attempts: 1 });
  });

  it.each([
    [['--status', 'lost'], /--status must be queued, delivered or failed, got "lost"/],
    [['--limit', '0'], /--limit must be a positive whole number, got "0"/],
    [['--limit'], /--limit needs a value/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await fixture.cli('messages', 'list', ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('store-orders messages retry', () => {
  it('puts a failed message back in the queue with every attempt allowed; a queued one stays, a delivered one is refused', async () => {
    const ids = await send(3);
    await failFirstDeliverSecond(ids);
    const [failed, delivered, queued] = ids as [string, string, string];
    // As a process: the family's run of the real CLI.
    expect(await fixture.cliProcess('messages', 'retry', failed)).toMatchObject({
      code: 0,
      stdout: `Message ${failed} is queued again.\n`,
      stderr: '',
    });
    const [listed] = await fixture.cliJson<StoredMessage[]>('messages', 'list', '--limit', '1');
    expect(listed).toMatchObject({ id: failed, status: 'queued', attempts: 0, lastError: 'the endpoint answered HTTP 500' });
    expect(await fixture.cli('messages', 'retry', queued)).toMatchObject({ code: 0, stdout: `Message ${queued} is queued already.\n` });
    expect(await fixture.cli('messages', 'retry', delivered)).toMatchObject({
      code: 1,
      stderr: `store-orders: message ${delivered} was delivered; only a failed message can be retried\n`,
    });
    const unknown = `msg_${'x'.repeat(22)}`;
    expect(await fixture.cli('messages', 'retry', unknown)).toMatchObject({ code: 1, stderr: `store-orders: no message ${unknown}\n` });
  });

  it('refuses what is not a message id, or none, with exit 2', async () => {
    expect((await fixture.cli('messages', 'retry', 'msg_short')).code).toBe(2);
    expect((await fixture.cli('messages', 'retry')).code).toBe(2);
  });
});
