// Messages, on every backend: stored and listed, and sent once per Idempotency-Key, which is replayed,
// refused for another request, forgotten after a day and purged, in one process as across processes.
import { describe, expect, it } from 'vitest';
import type { AdminStore } from '../../../src/store/store.js';
import { newCaller } from '../../support/caller.js';
import { message, onEveryBackend, retriedWhileBusy } from '../../support/storeSuite.js';

onEveryBackend('the $kind store', (t) => {
  /** The Idempotency-Keys the database holds, read past the store. */
  const storedKeys = async () =>
    (await t.scratch.rows<{ key: string }>('SELECT key FROM idempotency_keys ORDER BY key')).map(({ key }) => key);

  describe('messages', () => {
    it('are stored with their account and listed in arrival order, and counted while queued', async () => {
      const acme = await newCaller(t.store, 'acme');
      expect(await t.store.messages.enqueueMessage(message('msg_a'), acme)).toStrictEqual({
        id: 'msg_a',
        message: 'text of msg_a',
        status: 'queued',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      await t.store.messages.enqueueMessage(message('msg_b', '2026-01-01T00:00:01.000Z'), acme);
      // As JSON text: the CLI prints these records, so their field order is part of what it shows.
      const listed = (id: string, createdAt: string) => ({
        id,
        account: 'acme',
        message: `text of ${id}`,
        status: 'queued',
        createdAt,
        updatedAt: createdAt,
        attempts: 0,
      });
      expect(JSON.stringify(await t.store.messages.listMessages())).toBe(
        JSON.stringify([listed('msg_a', '2026-01-01T00:00:00.000Z'), listed('msg_b', '2026-01-01T00:00:01.000Z')]),
      );
      expect(await t.store.telemetry.countQueuedMessages()).toBe(2);
    });

    it('with an Idempotency-Key: queued once, replayed as first answered, refused for another request, new after a day', async () => {
      const acme = await newCaller(t.store, 'acme');
      const idempotency = { key: 'k1', fingerprint: Buffer.from('request a') };
      const first = await t.store.messages.enqueueMessageOnce(message('msg_1'), idempotency, acme);
      expect(first).toStrictEqual({ outcome: 'queued', message: expect.objectContaining({ id: 'msg_1' }) });
      const firstMessage = first.outcome === 'queued' ? first.message : undefined;
      expect(await t.store.messages.enqueueMessageOnce(message('msg_2'), idempotency, acme)).toStrictEqual({
        outcome: 'replayed',
        status: 202,
        body: JSON.stringify(firstMessage),
      });
      expect(
        await t.store.messages.enqueueMessageOnce(
          message('msg_3'),
          { key: 'k1', fingerprint: Buffer.from('request b') },
          acme,
        ),
      ).toStrictEqual({ outcome: 'key_reused' });
      // Another account's key of the same name is its own.
      const globex = await newCaller(t.store, 'globex');
      expect((await t.store.messages.enqueueMessageOnce(message('msg_4'), idempotency, globex)).outcome).toBe('queued');
      // A day and a millisecond later, the key is forgotten.
      const later = await t.store.messages.enqueueMessageOnce(message('msg_5', '2026-01-02T00:00:00.001Z'), idempotency, acme);
      expect(later.outcome).toBe('queued');
      expect((await t.store.messages.listMessages()).map(({ id }) => id)).toEqual(['msg_1', 'msg_4', 'msg_5']);
    });

    it('forgets the Idempotency-Keys of more than a day ago beside a later send, at most once a minute', async () => {
      const acme = await newCaller(t.store, 'acme');
      const send = (key: string, createdAt: string) =>
        t.store.messages.enqueueMessageOnce(message(`msg_${key}`, createdAt), { key, fingerprint: Buffer.from(key) }, acme);
      /** The keys the database holds, once they are `expected`: the purge runs beside the send, not in it. */
      const keysBecome = async (expected: string[]) => {
        let keys = await storedKeys();
        while (keys.join() !== expected.join()) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          keys = await storedKeys();
        }
        return keys;
      };
      await send('a', '2026-01-01T00:00:00.000Z');
      await send('b', '2026-01-01T00:00:10.000Z');
      await send('c', '2026-01-02T00:00:05.000Z');
      expect(await keysBecome(['b', 'c'])).toEqual(['b', 'c']);
      // Within a minute of that purge, b (now more than a day old too) is kept.
      await send('d', '2026-01-02T00:00:20.000Z');
      expect(await storedKeys()).toEqual(['b', 'c', 'd']);
      await send('e', '2026-01-02T00:01:05.000Z');
      expect(await keysBecome(['c', 'd', 'e'])).toEqual(['c', 'd', 'e']);
    });
  });

  describe('across processes', () => {
    it('100 sends racing with one Idempotency-Key from four processes: one message; the rest replay it or are in flight', async () => {
      const acme = await newCaller(t.store, 'acme');
      const processes = [t.store, await t.another(), await t.another(), await t.another()];
      const idempotency = { key: 'retry-1', fingerprint: Buffer.from('the same request') };
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          retriedWhileBusy(() =>
            (processes[i % 4] as AdminStore).messages.enqueueMessageOnce(message(`msg_${i}`), idempotency, acme),
          ),
        ),
      );
      const queued = outcomes.filter((outcome) => outcome.outcome === 'queued');
      expect(queued).toHaveLength(1);
      const first = queued[0]?.outcome === 'queued' ? queued[0].message : undefined;
      for (const outcome of outcomes) {
        if (outcome.outcome === 'replayed') expect(JSON.parse(outcome.body)).toStrictEqual(first);
        else if (outcome.outcome !== 'queued') expect(outcome).toStrictEqual({ outcome: 'in_flight' });
      }
      expect((await t.store.messages.listMessages()).map(({ id }) => id)).toEqual([first?.id]);
    });
  });
});
