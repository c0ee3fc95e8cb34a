// One process's dispatcher, on every backend, against a real receiver: an account's messages go one after
// another in order; a failed attempt lets the account's later messages pass it while it waits for its
// retry; a stop lets the attempt in flight end and hands the untried messages back to the queue.
import { expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { DeliveryObserver } from '../../src/delivery/ports.js';
import { EndpointClient } from '../../src/delivery/endpoint.js';
import { parseSecret } from '../../src/delivery/signature.js';
import type { AdminStore, StoredMessage } from '../../src/store/store.js';
import { newCaller } from '../support/caller.js';
import { type Receiver, startReceiver, until } from '../support/receiver.js';
import { message, onEveryBackend } from '../support/storeSuite.js';

const policy = { attempts: 3, maxAgeMs: 3_600_000, firstDelayMs: 200, maxDelayMs: 200 };
const quiet = { warn: () => {}, error: () => {} };

function dispatcherFor(store: AdminStore, receiver: Receiver, observed: string[] = []) {
  const client = new EndpointClient({ url: new URL(receiver.url), key: parseSecret(receiver.secret, 'secret') }, 5_000, 4);
  const observer: DeliveryObserver = { attempted: (outcome) => observed.push(outcome), delivered: () => {} };
  const dispatcher = new Dispatcher({ store: store.delivery, client, policy, timeoutMs: 5_000, observer, log: quiet });
  const stop = async () => {
    await dispatcher.stop();
    client.close();
  };
  return { dispatcher, stop };
}

onEveryBackend('a dispatcher on $kind', (t) => {
  const listed = async () => new Map((await t.store.messages.listMessages()).map((one) => [one.id, one] as [string, StoredMessage]));

  async function withReceiver(test: (receiver: Receiver) => Promise<void>) {
    const receiver = await startReceiver();
    try {
      await test(receiver);
    } finally {
      await receiver.close();
    }
  }

  it('delivers an account\'s messages one after another, in order, and records each', () =>
    withReceiver(async (receiver) => {
      const caller = await newCaller(t.store, 'acme');
      const ids = Array.from({ length: 10 }, (_, i) => `msg_${i}`);
      for (const id of ids) await t.store.messages.enqueueMessage(message(id, new Date().toISOString()), caller);
      const observed: string[] = [];
      const { dispatcher, stop } = dispatcherFor(t.store, receiver, observed);
      dispatcher.start();
      await until(async () => [...(await listed()).values()].every(({ status }) => status === 'delivered'));
      await stop();
      expect(receiver.deliveries.map(({ webhookId }) => webhookId)).toEqual(ids);
      expect(observed).toEqual(ids.map(() => 'delivered'));
    }));

  it('lets the account\'s later messages pass one whose attempt failed, which is tried again after its wait', () =>
    withReceiver(async (receiver) => {
      receiver.answer = ({ payload, attempt }) => (payload.id === 'msg_0' && attempt === 1 ? 503 : 204);
      const caller = await newCaller(t.store, 'acme');
      for (const id of ['msg_0', 'msg_1', 'msg_2']) await t.store.messages.enqueueMessage(message(id, new Date().toISOString()), caller);
      const { dispatcher, stop } = dispatcherFor(t.store, receiver);
      dispatcher.start();
      await until(async () => [...(await listed()).values()].every(({ status }) => status === 'delivered'));
      await stop();
      expect(receiver.deliveries.map(({ webhookId, attempt }) => `${webhookId}#${attempt}`)).toEqual([
        'msg_0#1',
        'msg_1#1',
        'msg_2#1',
        'msg_0#2',
      ]);
      expect((await listed()).get('msg_0')).toMatchObject({ attempts: 2, lastError: 'the endpoint answered HTTP 503' });
    }));

  it('stops: the attempt in flight ends and is recorded, the messages not tried yet go back to the queue as they were', () =>
    withReceiver(async (receiver) => {
      receiver.answer = () => ({ status: 204, afterMs: 300 });
      const caller = await newCaller(t.store, 'acme');
      for (const id of ['msg_0', 'msg_1', 'msg_2']) await t.store.messages.enqueueMessage(message(id, new Date().toISOString()), caller);
      const { dispatcher, stop } = dispatcherFor(t.store, receiver);
      dispatcher.start();
      await until(() => receiver.deliveries.length === 1);
      await stop();
      const after = await listed();
      expect(receiver.deliveries.map(({ webhookId }) => webhookId)).toEqual(['msg_0']);
      expect(after.get('msg_0')).toMatchObject({ status: 'delivered', attempts: 1 });
      for (const id of ['msg_1', 'msg_2']) expect(after.get(id)).toMatchObject({ status: 'queued', attempts: 0 });
      // Handed back, they are due at once for another process.
      const claimed = await t.store.delivery.claimMessages({
        owner: 'another',
        now: new Date().toISOString(),
        leaseUntil: new Date(Date.now() + 60_000).toISOString(),
        limit: 10,
      });
      expect(claimed.map(({ id }) => id)).toEqual(['msg_1', 'msg_2']);
    }));
});

