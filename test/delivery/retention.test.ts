// Retention on every backend: a sweep deletes the delivered and failed messages whose status was set
// longer ago than the retention, batch after batch, and nothing queued or newer; a failing store is logged,
// not thrown.
import { describe, expect, it } from 'vitest';
import { messageSweep, Retention } from '../../src/delivery/retention.js';
import { loadDeliverySettings } from '../../src/delivery/settings.js';
import { type DeliveryStore, IDEMPOTENCY_KEY_TTL_MS } from '../../src/store/store.js';
import { newCaller } from '../support/caller.js';
import { message, onEveryBackend } from '../support/storeSuite.js';

const DAY_MS = 86_400_000;
const day = (n: number) => new Date(Date.parse('2026-03-01T00:00:00.000Z') + n * DAY_MS);

onEveryBackend('retention on $kind', (t) => {
  it('deletes what was delivered or failed more than the retention ago, in batches, and keeps the rest', async () => {
    const caller = await newCaller(t.store, 'acme');
    const ids = Array.from({ length: 12 }, (_, i) => `msg_${String(i).padStart(2, '0')}`);
    for (const id of ids) await t.store.messages.enqueueMessage(message(id, day(0).toISOString()), await newCaller(t.store, id));
    await t.store.messages.enqueueMessage(message('msg_queued', day(0).toISOString()), caller);
    const claimed = await t.store.delivery.claimMessages({
      owner: 'p1',
      now: day(0).toISOString(),
      leaseUntil: day(1).toISOString(),
      limit: 20,
    });
    expect(claimed).toHaveLength(13);
    // msg_00 to msg_09 settled on day 1 (even delivered, odd failed); msg_10 and msg_11 on day 29.
    await t.store.delivery.settleMessages('p1', [
      ...ids.map((id, i) => {
        const at = day(i < 10 ? 1 : 29).toISOString();
        return i % 2 ? { id, outcome: 'failed' as const, error: 'e', at } : { id, outcome: 'delivered' as const, at };
      }),
      { id: 'msg_queued', outcome: 'released' as const },
    ]);
    const batches: number[] = [];
    const counted: DeliveryStore = {
      ...t.store.delivery,
      deleteSettledMessages: async (before, limit) => {
        const deleted = await t.store.delivery.deleteSettledMessages(before, limit);
        batches.push(deleted);
        return deleted;
      },
    };
    const retention = new Retention(messageSweep(counted), 30 * DAY_MS, { warn: () => {}, error: () => {} }, { batch: 4, now: () => day(32) });
    expect(await retention.sweep()).toBe(10);
    expect(batches).toEqual([4, 4, 2]);
    expect((await t.store.messages.listMessages()).map(({ id }) => id)).toEqual(['msg_10', 'msg_11', 'msg_queued']);
    await retention.stop();
  });

  it('logs a store that fails, and sweeps again next time', async () => {
    const errors: unknown[] = [];
    const failing: DeliveryStore = {
      ...t.store.delivery,
      deleteSettledMessages: () => Promise.reject(new Error('the disk is full')),
    };
    const retention = new Retention(messageSweep(failing), DAY_MS, { warn: () => {}, error: (fields) => errors.push(fields) });
    expect(await retention.sweep()).toBe(0);
    expect(errors).toEqual([{ err: new Error('the disk is full') }]);
  });
});

describe('retention', () => {
  it('is never shorter than the day an Idempotency-Key is kept (MESSAGE_RETENTION_DAYS starts at 1)', () => {
    expect(() => loadDeliverySettings({ MESSAGE_RETENTION_DAYS: '0' })).toThrow('MESSAGE_RETENTION_DAYS');
    expect(loadDeliverySettings({ MESSAGE_RETENTION_DAYS: '1' }).retentionMs).toBeGreaterThanOrEqual(IDEMPOTENCY_KEY_TTL_MS);
  });
});
