// The message queue as it is delivered, on every backend: a client reads its own messages' status; the
// operator lists them by status and puts a failed one back; claims hold a message for one process at a
// time, an account's in order, and give it up when their lease ends; settlements record what came of each
// attempt, only while their claim holds the message; retention deletes what is past it, in batches.
import { describe, expect, it } from 'vitest';
import type { AdminStore, ClaimedMessage, Principal } from '../../../src/store/store.js';
import { newCaller } from '../../support/caller.js';
import { message, onEveryBackend } from '../../support/storeSuite.js';

/** An instant `seconds` after the suite's start of time. */
const at = (seconds: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + seconds * 1000).toISOString();

/** A claim at `seconds`, its lease `leaseSeconds` long. */
const claim = (store: AdminStore, owner: string, seconds: number, { limit = 10, leaseSeconds = 30 } = {}) =>
  store.delivery.claimMessages({ owner, now: at(seconds), leaseUntil: at(seconds + leaseSeconds), limit });

const ids = (claimed: readonly ClaimedMessage[]) => claimed.map(({ id }) => id);

onEveryBackend('the $kind store', (t) => {
  /** Queues messages `names` for `caller`, accepted a second apart from `from`. */
  const send = async (caller: Principal, names: string[], from = 0) => {
    for (const [i, name] of names.entries()) await t.store.messages.enqueueMessage(message(name, at(from + i)), caller);
  };
  const statusOf = async (id: string) => (await t.store.messages.listMessages()).find((one) => one.id === id);

  describe('the delivery of messages', () => {
    it('lets a client read its own message with its status, and finds no other account\'s', async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await send(acme, ['msg_a']);
      expect(await t.store.messages.findMessage('msg_a', acme)).toStrictEqual({
        id: 'msg_a',
        message: 'text of msg_a',
        status: 'queued',
        createdAt: at(0),
        updatedAt: at(0),
      });
      expect(await t.store.messages.findMessage('msg_a', globex)).toBeUndefined();
      expect(await t.store.messages.findMessage('msg_none', acme)).toBeUndefined();
    });

    it('claims due messages in arrival order with what their delivery needs, each counting an attempt', async () => {
      const acme = await newCaller(t.store, 'acme');
      await send(acme, ['msg_1', 'msg_2', 'msg_3']);
      expect(await claim(t.store, 'p1', 10, { limit: 2 })).toStrictEqual([
        { id: 'msg_1', account: 'acme', message: 'text of msg_1', createdAt: at(0), attempt: 1 },
        { id: 'msg_2', account: 'acme', message: 'text of msg_2', createdAt: at(1), attempt: 1 },
      ]);
      // msg_3 is held back by its account's earlier messages, held by p1's claim.
      expect(await claim(t.store, 'p2', 11)).toEqual([]);
      // Once their lease has ended (p1 stopped), another claim takes all three, the first two a second time.
      const again = await claim(t.store, 'p2', 41);
      expect(again.map(({ id, attempt }) => [id, attempt])).toEqual([['msg_1', 2], ['msg_2', 2], ['msg_3', 1]]);
    });

    it('keeps the traceparent each message was sent with, written one by one, in one turn, or under an Idempotency-Key', async () => {
      const acme = await newCaller(t.store, 'acme');
      const traced = (id: string, seconds: number) => ({ ...message(id, at(seconds)), traceparent: `00-${'a'.repeat(31)}${seconds}-${'b'.repeat(16)}-01` });
      await t.store.messages.enqueueMessage(traced('msg_1', 1), acme);
      // In one turn: one statement for both (group commit), each row with its own.
      await Promise.all([t.store.messages.enqueueMessage(traced('msg_2', 2), acme), t.store.messages.enqueueMessage(traced('msg_3', 3), acme)]);
      const once = { key: 'retry-1', fingerprint: Buffer.alloc(32, 1) };
      expect((await t.store.messages.enqueueMessageOnce(traced('msg_4', 4), once, acme)).outcome).toBe('queued');
      await t.store.messages.enqueueMessage(message('msg_5', at(5)), acme);
      const claimed = await claim(t.store, 'p1', 10);
      expect(claimed.map(({ id, traceparent }) => [id, traceparent])).toEqual([
        ['msg_1', `00-${'a'.repeat(31)}1-${'b'.repeat(16)}-01`],
        ['msg_2', `00-${'a'.repeat(31)}2-${'b'.repeat(16)}-01`],
        ['msg_3', `00-${'a'.repeat(31)}3-${'b'.repeat(16)}-01`],
        ['msg_4', `00-${'a'.repeat(31)}4-${'b'.repeat(16)}-01`],
        ['msg_5', undefined],
      ]);
    });

    it('holds back an account\'s later messages while an earlier one is claimed, never another account\'s', async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await send(acme, ['msg_a1']);
      expect(ids(await claim(t.store, 'p1', 10))).toEqual(['msg_a1']);
      await send(acme, ['msg_a2'], 2);
      await send(globex, ['msg_g1'], 3);
      expect(ids(await claim(t.store, 'p2', 11))).toEqual(['msg_g1']);
      await t.store.delivery.settleMessages('p1', [{ id: 'msg_a1', outcome: 'delivered', at: at(12) }]);
      expect(ids(await claim(t.store, 'p2', 13))).toEqual(['msg_a2']);
    });

    it('records each settlement: delivered, tried again later, failed, or released with its attempt given back', async () => {
      const names = ['msg_d', 'msg_r', 'msg_f', 'msg_x'];
      for (const [i, name] of names.entries()) await send(await newCaller(t.store, `account ${i}`), [name], i);
      expect(ids(await claim(t.store, 'p1', 10))).toEqual(names);
      await t.store.delivery.settleMessages('p1', [
        { id: 'msg_d', outcome: 'delivered', at: at(11) },
        { id: 'msg_r', outcome: 'retry', error: 'the endpoint answered HTTP 500', dueAt: at(60) },
        { id: 'msg_f', outcome: 'failed', error: 'connection refused', at: at(12) },
        { id: 'msg_x', outcome: 'released' },
      ]);
      const listed = await t.store.messages.listMessages();
      expect(listed.map(({ id, status, updatedAt, attempts, lastError }) => ({ id, status, updatedAt, attempts, lastError })))
        .toEqual([
          { id: 'msg_d', status: 'delivered', updatedAt: at(11), attempts: 1, lastError: undefined },
          { id: 'msg_r', status: 'queued', updatedAt: at(1), attempts: 1, lastError: 'the endpoint answered HTTP 500' },
          { id: 'msg_f', status: 'failed', updatedAt: at(12), attempts: 1, lastError: 'connection refused' },
          { id: 'msg_x', status: 'queued', updatedAt: at(3), attempts: 0, lastError: undefined },
        ]);
      // The released one is due at once; the retry only at its time, and then with its last error.
      expect(ids(await claim(t.store, 'p2', 13))).toEqual(['msg_x']);
      await t.store.delivery.settleMessages('p2', [{ id: 'msg_x', outcome: 'delivered', at: at(14) }]);
      const retried = await claim(t.store, 'p3', 60);
      expect(retried).toStrictEqual([
        expect.objectContaining({ id: 'msg_r', attempt: 2, lastError: 'the endpoint answered HTTP 500' }),
      ]);
    });

    it('ignores a settlement from a claim that no longer holds the message', async () => {
      const acme = await newCaller(t.store, 'acme');
      await send(acme, ['msg_1']);
      await claim(t.store, 'p1', 10, { leaseSeconds: 5 });
      expect(ids(await claim(t.store, 'p2', 20))).toEqual(['msg_1']);
      await t.store.delivery.settleMessages('p1', [{ id: 'msg_1', outcome: 'failed', error: 'late', at: at(21) }]);
      expect(await statusOf('msg_1')).toMatchObject({ status: 'queued', attempts: 2 });
      await t.store.delivery.settleMessages('p2', [{ id: 'msg_1', outcome: 'delivered', at: at(22) }]);
      await t.store.delivery.settleMessages('p2', [{ id: 'msg_1', outcome: 'failed', error: 'twice', at: at(23) }]);
      expect(await statusOf('msg_1')).toMatchObject({ status: 'delivered', updatedAt: at(22) });
    });

    it('puts a failed message back in the queue with every attempt allowed; leaves a queued or delivered one', async () => {
      const acme = await newCaller(t.store, 'acme');
      await send(acme, ['msg_f', 'msg_d', 'msg_q']);
      await claim(t.store, 'p1', 10, { limit: 2 });
      await t.store.delivery.settleMessages('p1', [
        { id: 'msg_f', outcome: 'failed', error: 'connection refused', at: at(11) },
        { id: 'msg_d', outcome: 'delivered', at: at(11) },
      ]);
      expect(await t.store.messages.retryMessage('msg_f')).toBe('requeued');
      expect(await statusOf('msg_f')).toMatchObject({ status: 'queued', attempts: 0, lastError: 'connection refused' });
      expect(await t.store.messages.retryMessage('msg_f')).toBe('queued');
      expect(await t.store.messages.retryMessage('msg_d')).toBe('delivered');
      expect(await t.store.messages.retryMessage('msg_none')).toBe('missing');
      expect(ids(await claim(t.store, 'p2', 12))).toEqual(['msg_f', 'msg_q']);
    });

    it('lists messages of one status, the first N, oldest first, and counts each status', async () => {
      const acme = await newCaller(t.store, 'acme');
      await send(acme, ['msg_1', 'msg_2', 'msg_3', 'msg_4']);
      await claim(t.store, 'p1', 10, { limit: 2 });
      await t.store.delivery.settleMessages('p1', [
        { id: 'msg_1', outcome: 'failed', error: 'e', at: at(11) },
        { id: 'msg_2', outcome: 'delivered', at: at(11) },
      ]);
      const listed = async (filter: Parameters<AdminStore['messages']['listMessages']>[0]) =>
        (await t.store.messages.listMessages(filter)).map(({ id }) => id);
      expect(await listed({ status: 'queued' })).toEqual(['msg_3', 'msg_4']);
      expect(await listed({ status: 'queued', limit: 1 })).toEqual(['msg_3']);
      expect(await listed({ status: 'failed' })).toEqual(['msg_1']);
      expect(await listed({ limit: 3 })).toEqual(['msg_1', 'msg_2', 'msg_3']);
      expect(await t.store.telemetry.countMessagesByStatus()).toEqual({ queued: 2, delivered: 1, failed: 1 });
      expect(await t.store.telemetry.oldestQueuedAt()).toBe(at(2));
      expect(await t.store.telemetry.countQueuedMessages()).toBe(2);
    });

    it('deletes delivered and failed messages whose status was set before a time, at most N at once, never a queued one', async () => {
      const acme = await newCaller(t.store, 'acme');
      const names = Array.from({ length: 6 }, (_, i) => `msg_${i}`);
      for (const [i, name] of names.entries()) await send(await newCaller(t.store, `a${i}`), [name], i);
      await send(acme, ['msg_queued']);
      await claim(t.store, 'p1', 10);
      await t.store.delivery.settleMessages('p1', [
        ...names.slice(0, 3).map((id, i) => ({ id, outcome: 'delivered' as const, at: at(100 + i) })),
        ...names.slice(3).map((id, i) => ({ id, outcome: 'failed' as const, error: 'e', at: at(100 + i) })),
        { id: 'msg_queued', outcome: 'released' as const },
      ]);
      // Set before 102: msg_0, msg_1 (delivered) and msg_3, msg_4 (failed).
      expect(await t.store.delivery.deleteSettledMessages(at(102), 3)).toBe(3);
      expect(await t.store.delivery.deleteSettledMessages(at(102), 3)).toBe(1);
      expect(await t.store.delivery.deleteSettledMessages(at(102), 3)).toBe(0);
      expect((await t.store.messages.listMessages()).map(({ id }) => id)).toEqual(['msg_2', 'msg_5', 'msg_queued']);
    });
  });

  describe('the delivery of messages, across processes', () => {
    it('four processes claiming 400 messages of 8 accounts at once: each message once, an account in order, one process at a time', async () => {
      const accounts = await Promise.all(Array.from({ length: 8 }, (_, i) => newCaller(t.store, `account ${i}`)));
      const sent = new Map<string, string[]>();
      for (let i = 0; i < 400; i++) {
        const account = accounts[i % 8] as Principal;
        await t.store.messages.enqueueMessage(message(`msg_${i}`, at(i)), account);
        sent.set(account.accountName, [...(sent.get(account.accountName) ?? []), `msg_${i}`]);
      }
      const processes = [t.store, await t.another(), await t.another(), await t.another()];
      const received = new Map<string, string[]>();
      const holder = new Map<string, string>();
      let overlaps = 0;
      const deliverAll = async (store: AdminStore, owner: string) => {
        for (let second = 1000; ; second++) {
          const claimed = await claim(store, owner, second, { limit: 7, leaseSeconds: 100_000 });
          if (claimed.length === 0 && [...received.values()].flat().length === 400) return;
          for (const { account } of claimed) if ((holder.get(account) ?? owner) !== owner) overlaps++;
          for (const { id, account } of claimed) {
            holder.set(account, owner);
            received.set(account, [...(received.get(account) ?? []), id]);
          }
          await new Promise((resolve) => setImmediate(resolve));
          for (const { account } of claimed) holder.delete(account);
          await store.delivery.settleMessages(owner, claimed.map(({ id }) => ({ id, outcome: 'delivered', at: at(second) })));
        }
      };
      await Promise.all(processes.map((store, i) => deliverAll(store, `p${i}`)));
      expect(overlaps).toBe(0);
      expect(received).toEqual(sent);
      expect(await t.store.telemetry.countMessagesByStatus()).toEqual({ queued: 0, delivered: 400, failed: 0 });
    });
  });
});
