// The accounts' webhook endpoints, on every backend: registered up to a most, listed a page at a time, read,
// changed, deleted and given new secrets, each by its own account only; the events written with the changes
// they report, in the same transaction; the replay of what an endpoint missed; its attempts, newest first.
import { describe, expect, it } from 'vitest';
import type { AdminStore, NewWebhookEndpoint, Principal, WebhookEventType } from '../../../src/store/store.js';
import { type EventDataRow, eventDataOf } from '../../../src/store/webhookRows.js';
import { newCaller } from '../../support/caller.js';
import { until } from '../../support/receiver.js';
import { message, onEveryBackend } from '../../support/storeSuite.js';

const AT = '2026-12-06T09:30:00.000Z';

const newEndpoint = (id: string, events: WebhookEventType[] = ['order.cancelled', 'order.shipped']): NewWebhookEndpoint => ({
  id,
  url: `https://hooks.example.com/${id}`,
  events,
  secret: `whsec_${id}`,
  createdAt: AT,
});

/** The endpoint as the API answers it, registered at AT and never changed. */
const answered = (id: string, events: WebhookEventType[] = ['order.cancelled', 'order.shipped']) => ({
  id,
  url: `https://hooks.example.com/${id}`,
  events,
  status: 'enabled',
  createdAt: AT,
  updatedAt: AT,
});

interface EventRow extends EventDataRow {
  id: string;
  type: string;
  account_id: number | string | null;
  created_at: string;
}

onEveryBackend('the $kind store', (t) => {
  const events = () =>
    t.scratch.rows<EventRow>('SELECT id, type, account_id, data, message, created_at FROM events ORDER BY seq');
  const register = (caller: Principal, id: string, events?: WebhookEventType[]) =>
    t.store.webhooks.createEndpoint(caller.accountId, newEndpoint(id, events), 10);
  /**
   * Disabled, then enabled again, past every event written before. On PostgreSQL an endpoint enabled again
   * starts at the oldest transaction still running on the whole server (migration 15), which a writer in
   * another database (a test file beside this one) can hold behind these events: it waits until none is.
   */
  const reenabled = async (caller: Principal, id: string) => {
    if (t.scratch.kind === 'postgres') await until(eventsPassed);
    await t.store.webhooks.updateEndpoint(caller.accountId, id, { status: 'disabled' }, AT);
    await t.store.webhooks.updateEndpoint(caller.accountId, id, { status: 'enabled' }, AT);
  };
  /** Whether every event's transaction is older than any still running on the PostgreSQL server. */
  const eventsPassed = async () => {
    const [horizon] = await t.scratch.rows<{ passed: boolean }>(
      'SELECT coalesce(pg_snapshot_xmin(pg_current_snapshot()) > max(xact), true) AS passed FROM events',
    );
    return horizon?.passed === true;
  };
  const EVERY_TYPE: WebhookEventType[] = ['order.cancelled', 'order.shipped', 'message.delivered', 'message.failed'];

  describe('webhook endpoints', () => {
    it('are registered enabled, read and listed by their own account only, a page at a time', async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      expect(await register(acme, 'we_a')).toStrictEqual(answered('we_a'));
      await register(acme, 'we_b', ['message.failed']);
      await register(globex, 'we_c');
      expect(await t.store.webhooks.findEndpoint(acme.accountId, 'we_a')).toStrictEqual(answered('we_a'));
      expect(await t.store.webhooks.findEndpoint(globex.accountId, 'we_a')).toBeUndefined();
      const first = await t.store.webhooks.listEndpoints(acme.accountId, 0, 1);
      expect(first.items).toStrictEqual([answered('we_a')]);
      expect(first.next).toBeDefined();
      const second = await t.store.webhooks.listEndpoints(acme.accountId, first.next ?? 0, 1);
      expect(second).toStrictEqual({ items: [answered('we_b', ['message.failed'])] });
    });

    it('are refused past the account\'s most, which counts that account\'s alone', async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await t.store.webhooks.createEndpoint(acme.accountId, newEndpoint('we_a'), 2);
      await t.store.webhooks.createEndpoint(acme.accountId, newEndpoint('we_b'), 2);
      expect(await t.store.webhooks.createEndpoint(acme.accountId, newEndpoint('we_c'), 2)).toBe('too_many');
      expect(await t.store.webhooks.createEndpoint(globex.accountId, newEndpoint('we_d'), 2)).toMatchObject({ id: 'we_d' });
      expect((await t.store.webhooks.listEndpoints(acme.accountId, 0, 10)).items).toHaveLength(2);
    });

    it('change only the fields given; disabled by their client, enabled again; "" removes the description', async () => {
      const acme = await newCaller(t.store, 'acme');
      await t.store.webhooks.createEndpoint(acme.accountId, { ...newEndpoint('we_a'), description: 'first' }, 10);
      const later = '2026-12-06T10:00:00.000Z';
      expect(await t.store.webhooks.updateEndpoint(acme.accountId, 'we_a', { status: 'disabled' }, later)).toStrictEqual({
        ...answered('we_a'),
        description: 'first',
        status: 'disabled',
        disabledReason: 'client',
        updatedAt: later,
      });
      const changed = await t.store.webhooks.updateEndpoint(
        acme.accountId,
        'we_a',
        { url: 'https://elsewhere.example/in', events: ['message.delivered'], description: '', status: 'enabled' },
        later,
      );
      expect(changed).toStrictEqual({
        ...answered('we_a', ['message.delivered']),
        url: 'https://elsewhere.example/in',
        updatedAt: later,
      });
      const globex = await newCaller(t.store, 'globex');
      expect(await t.store.webhooks.updateEndpoint(globex.accountId, 'we_a', { status: 'disabled' }, later)).toBeUndefined();
    });

    it('are deleted by their own account only, with their attempts', async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await register(acme, 'we_a');
      await t.store.webhooks.recordAttempt({
        endpointId: 'we_a',
        eventId: 'evt_1',
        eventType: 'order.shipped',
        attempt: 1,
        outcome: 'delivered',
        statusCode: 200,
        attemptedAt: AT,
      });
      expect(await t.store.webhooks.deleteEndpoint(globex.accountId, 'we_a')).toBe(false);
      expect(await t.store.webhooks.deleteEndpoint(acme.accountId, 'we_a')).toBe(true);
      expect(await t.store.webhooks.deleteEndpoint(acme.accountId, 'we_a')).toBe(false);
      expect(await t.scratch.rows('SELECT seq FROM webhook_attempts')).toEqual([]);
    });

    it('keep the secret before a rotation, with its end, and no older one', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a');
      const secrets = () =>
        t.scratch.rows<{ secret: string; previous_secret: string | null; previous_secret_expires_at: string | null }>(
          'SELECT secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints',
        );
      const rotation = (secret: string) => ({ secret, at: AT, previousExpiresAt: '2026-12-07T09:30:00.000Z' });
      expect(await t.store.webhooks.rotateSecret(acme.accountId, 'we_a', rotation('whsec_2'))).toBe(true);
      expect(await secrets()).toEqual([
        { secret: 'whsec_2', previous_secret: 'whsec_we_a', previous_secret_expires_at: '2026-12-07T09:30:00.000Z' },
      ]);
      await t.store.webhooks.rotateSecret(acme.accountId, 'we_a', rotation('whsec_3'));
      expect(await secrets()).toEqual([
        { secret: 'whsec_3', previous_secret: 'whsec_2', previous_secret_expires_at: '2026-12-07T09:30:00.000Z' },
      ]);
      const globex = await newCaller(t.store, 'globex');
      expect(await t.store.webhooks.rotateSecret(globex.accountId, 'we_a', rotation('whsec_4'))).toBe(false);
    });

    it('list their attempts newest first, a page at a time, and are not found for another account', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a');
      expect(await t.store.webhooks.listDeliveries(acme.accountId, 'we_a', 0, 10)).toStrictEqual({ items: [] });
      for (const attempt of [1, 2, 3]) {
        await t.store.webhooks.recordAttempt({
          endpointId: 'we_a',
          eventId: 'evt_1',
          eventType: 'order.shipped',
          attempt,
          outcome: attempt === 3 ? 'delivered' : 'failed',
          ...(attempt === 1 ? { error: 'connection refused' } : { statusCode: attempt === 3 ? 200 : 503 }),
          attemptedAt: `2026-12-06T09:3${attempt}:00.000Z`,
        });
      }
      const first = await t.store.webhooks.listDeliveries(acme.accountId, 'we_a', 0, 2);
      expect(first?.items.map(({ attempt, outcome, statusCode }) => [attempt, outcome, statusCode])).toEqual([
        [3, 'delivered', 200],
        [2, 'failed', 503],
      ]);
      const rest = await t.store.webhooks.listDeliveries(acme.accountId, 'we_a', first?.next ?? 0, 2);
      expect(rest).toStrictEqual({
        items: [{ eventId: 'evt_1', eventType: 'order.shipped', attempt: 1, outcome: 'failed', error: 'connection refused', attemptedAt: '2026-12-06T09:31:00.000Z' }],
      });
      const globex = await newCaller(t.store, 'globex');
      expect(await t.store.webhooks.listDeliveries(globex.accountId, 'we_a', 0, 2)).toBeUndefined();
    });
  });

  describe('events', () => {
    it('are written with a cancel, a ship, a delivered and a failed message, the order or message as v2 answers it then', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a', EVERY_TYPE);
      const cancelled = await t.store.orders.addOrder({ petId: 7, quantity: 2, shipDate: '2026-12-01T09:00:00.000Z', complete: false });
      const shipped = await t.store.orders.addOrder({ petId: 3 });
      expect(await t.store.orders.cancelOrder(cancelled.id, acme)).toBe('cancelled');
      expect(await t.store.orders.shipOrder(shipped.id)).toBe('shipped');
      await settledMessages(t.store, acme);
      const written = await events();
      expect(written.map(({ type }) => type)).toEqual(['order.cancelled', 'order.shipped', 'message.delivered', 'message.failed']);
      for (const { id } of written) expect(id).toMatch(/^evt_[0-9a-f]{22}$/);
      expect(eventDataOf(written[0] as EventRow)).toStrictEqual({
        id: cancelled.id,
        petId: 7,
        quantity: 2,
        shipDate: '2026-12-01T09:00:00.000Z',
        complete: false,
        status: 'cancelled',
      });
      // The fields the store has no value for are left out, as the API leaves them out.
      expect(eventDataOf(written[1] as EventRow)).toStrictEqual({ id: shipped.id, petId: 3, complete: false, status: 'shipped' });
      expect(written.slice(0, 2).map(({ account_id }) => account_id)).toEqual([null, null]);
      expect(written.slice(2).map(({ account_id }) => Number(account_id))).toEqual([acme.accountId, acme.accountId]);
      // In the order of v2's fields, as the API answers it.
      expect(JSON.stringify(eventDataOf(written[2] as EventRow))).toBe(JSON.stringify(await t.store.messages.findMessage('msg_ok', acme)));
      expect(eventDataOf(written[3] as EventRow)).toMatchObject({ id: 'msg_bad', status: 'failed' });
    });

    it("keep the trace of the request that made the change, which the claim gives with the event; the operator's ship has none", async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a', EVERY_TYPE);
      const cancelled = await t.store.orders.addOrder({ petId: 7 });
      const shipped = await t.store.orders.addOrder({ petId: 3 });
      const cancel = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const send = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
      expect(await t.store.orders.cancelOrder(cancelled.id, acme, cancel)).toBe('cancelled');
      expect(await t.store.orders.shipOrder(shipped.id)).toBe('shipped');
      await t.store.messages.enqueueMessage({ ...message('msg_traced'), traceparent: send }, acme);
      const claim = { owner: 'test', now: '2026-01-01T00:01:00.000Z', leaseUntil: '2026-01-01T00:02:00.000Z', limit: 10 };
      await t.store.delivery.claimMessages(claim);
      await t.store.delivery.settleMessages('test', [{ id: 'msg_traced', outcome: 'delivered', at: '2026-01-01T00:01:01.000Z' }]);
      const traces = await t.scratch.rows<{ type: string; traceparent: string | null }>('SELECT type, traceparent FROM events ORDER BY seq');
      expect(traces).toEqual([
        { type: 'order.cancelled', traceparent: cancel },
        { type: 'order.shipped', traceparent: null },
        { type: 'message.delivered', traceparent: send },
      ]);
      if (t.scratch.kind === 'postgres') await until(eventsPassed);
      const [claimed] = await t.store.eventDelivery.claimEndpoints({ ...claim, now: new Date().toISOString(), leaseUntil: '2999-01-01T00:00:00.000Z' });
      expect(claimed?.event).toMatchObject({ type: 'order.cancelled', traceparent: cancel });
    });

    it('are not written by a change that did not happen: a cancel of a shipped order, a ship of a cancelled one', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a');
      const order = await t.store.orders.addOrder({ petId: 1, status: 'shipped' });
      expect(await t.store.orders.cancelOrder(order.id, acme)).toBe('shipped');
      const other = await t.store.orders.addOrder({ petId: 1 });
      await t.store.orders.cancelOrder(other.id, acme);
      expect(await t.store.orders.shipOrder(other.id)).toBe('not_pending');
      expect((await events()).map(({ type }) => type)).toEqual(['order.cancelled']);
    });

    it('are not written by a cancel refused to a revoked key', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a');
      const order = await t.store.orders.addOrder({ petId: 1 });
      await t.store.keys.revokeKeyById(acme.keyId);
      expect(await t.store.orders.cancelOrder(order.id, acme)).toBe('unauthorized');
      expect(await events()).toEqual([]);
    });

    it('are not written when no endpoint, enabled or not, subscribes to them: none could be sent them', async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await register(acme, 'we_a', ['order.shipped', 'message.failed']);
      await t.store.webhooks.updateEndpoint(acme.accountId, 'we_a', { status: 'disabled' }, AT);
      const [cancelled, shipped] = [await t.store.orders.addOrder({ petId: 1 }), await t.store.orders.addOrder({ petId: 2 })];
      await t.store.orders.cancelOrder(cancelled.id, acme);
      await t.store.orders.shipOrder(shipped.id);
      // globex's messages: no endpoint of globex's subscribes; acme's would.
      await settledMessages(t.store, globex);
      expect((await events()).map(({ type }) => type)).toEqual(['order.shipped']);
    });
  });

  describe('events and attempts past their retention', () => {
    it('are deleted in batches, with the replays of the events, and nothing newer', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_a');
      const orders = await Promise.all([1, 2, 3].map((petId) => t.store.orders.addOrder({ petId })));
      for (const { id } of orders) await t.store.orders.cancelOrder(id, acme);
      await reenabled(acme, 'we_a');
      const range = { since: '2000-01-01T00:00:00.000Z', until: '2100-01-01T00:00:00.000Z', limit: 10, at: AT };
      expect(await t.store.webhooks.replayEvents(acme.accountId, 'we_a', range)).toStrictEqual({ queued: 3 });
      const attempt = { endpointId: 'we_a', eventId: 'evt_1', eventType: 'order.cancelled' as const, outcome: 'failed' as const };
      await t.store.webhooks.recordAttempt({ ...attempt, attempt: 1, error: 'x', attemptedAt: '2026-01-01T00:00:00.000Z' });
      await t.store.webhooks.recordAttempt({ ...attempt, attempt: 2, error: 'x', attemptedAt: '2999-01-01T00:00:00.000Z' });
      // Every event and the first attempt are older than this; the second attempt is not.
      const before = '2100-01-01T00:00:00.000Z';
      expect(await t.store.eventDelivery.deleteEventsBefore(before, 2)).toBe(3);
      expect(await t.store.eventDelivery.deleteEventsBefore(before, 2)).toBe(1);
      expect(await t.store.eventDelivery.deleteEventsBefore(before, 2)).toBe(0);
      expect(await events()).toEqual([]);
      expect(await t.scratch.rows('SELECT event_seq FROM webhook_replays')).toEqual([]);
      expect((await t.store.webhooks.listDeliveries(acme.accountId, 'we_a', 0, 10))?.items.map(({ attempt }) => attempt)).toEqual([2]);
    });
  });

  describe('a replay', () => {
    it("queues the endpoint's passed events of the range, of its types and account, that it has no delivered attempt for", async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await register(acme, 'we_a', ['order.cancelled', 'message.delivered']);
      await register(globex, 'we_g', EVERY_TYPE);
      const orders = await Promise.all([1, 2, 3].map((petId) => t.store.orders.addOrder({ petId })));
      for (const { id } of orders) await t.store.orders.cancelOrder(id, acme);
      // globex's: written for globex's endpoint, never acme's to have.
      await settledMessages(t.store, globex);
      // Passed: enabled again after them. One was delivered already.
      await reenabled(acme, 'we_a');
      const [delivered] = await events();
      await t.store.webhooks.recordAttempt({
        endpointId: 'we_a',
        eventId: delivered?.id ?? '',
        eventType: 'order.cancelled',
        attempt: 1,
        outcome: 'delivered',
        statusCode: 200,
        attemptedAt: AT,
      });
      const range = { since: '2000-01-01T00:00:00.000Z', until: '2100-01-01T00:00:00.000Z', at: AT };
      const first = await t.store.webhooks.replayEvents(acme.accountId, 'we_a', { ...range, limit: 1 });
      const createdAt = (await events())[2]?.created_at;
      expect(first).toStrictEqual({ queued: 1, nextSince: createdAt });
      expect(await t.store.webhooks.replayEvents(acme.accountId, 'we_a', { ...range, limit: 10 })).toStrictEqual({ queued: 1 });
      // Queued once: nothing is left.
      expect(await t.store.webhooks.replayEvents(acme.accountId, 'we_a', { ...range, limit: 10 })).toStrictEqual({ queued: 0 });
      expect(await t.store.webhooks.replayEvents(globex.accountId, 'we_a', { ...range, limit: 10 })).toBeUndefined();
    });

    it('leaves out the events from before the endpoint was registered', async () => {
      const acme = await newCaller(t.store, 'acme');
      await register(acme, 'we_old');
      const order = await t.store.orders.addOrder({ petId: 1 });
      await t.store.orders.cancelOrder(order.id, acme);
      // Registered after the cancel, the clock a day on.
      const later = { ...newEndpoint('we_a'), createdAt: '2100-01-01T00:00:00.000Z' };
      await t.store.webhooks.createEndpoint(acme.accountId, later, 10);
      const range = { since: '2000-01-01T00:00:00.000Z', until: '2200-01-01T00:00:00.000Z', limit: 10, at: AT };
      expect(await t.store.webhooks.replayEvents(acme.accountId, 'we_a', range)).toStrictEqual({ queued: 0 });
    });

    it('leaves out the events after the endpoint\'s position, which are still to be sent', async () => {
      const acme = await newCaller(t.store, 'acme');
      await t.store.webhooks.createEndpoint(acme.accountId, newEndpoint('we_a'), 10);
      const order = await t.store.orders.addOrder({ petId: 1 });
      await t.store.orders.cancelOrder(order.id, acme);
      const range = { since: '2000-01-01T00:00:00.000Z', until: '2100-01-01T00:00:00.000Z', limit: 10, at: AT };
      expect(await t.store.webhooks.replayEvents(acme.accountId, 'we_a', range)).toStrictEqual({ queued: 0 });
    });
  });
});

/** Two messages of `caller`'s, one settled delivered and one failed. */
async function settledMessages(store: AdminStore, caller: Principal): Promise<void> {
  await store.messages.enqueueMessage(message('msg_ok'), caller);
  await store.messages.enqueueMessage(message('msg_bad', '2026-01-01T00:00:01.000Z'), caller);
  const claim = { owner: 'test', now: '2026-01-01T00:01:00.000Z', leaseUntil: '2026-01-01T00:02:00.000Z', limit: 10 };
  expect(await store.delivery.claimMessages(claim)).toHaveLength(2);
  await store.delivery.settleMessages('test', [
    { id: 'msg_ok', outcome: 'delivered', at: '2026-01-01T00:01:01.000Z' },
    { id: 'msg_bad', outcome: 'failed', error: 'gone', at: '2026-01-01T00:01:02.000Z' },
  ]);
}
