// Generated sequences of listOrders, cancelOrder, sendMessage and the operator's CLI (orders add and
// ship) against one real server, checked after every step against a small model of order states. Once
// cancelled, an order is never listed again by v1 and every later cancel is 404. API v2 joins in: its
// cancel, and walks through every page of its listOrders with filters while orders are cancelled, shipped,
// added and imported between and during the page requests, held to the contract's stability promise.
// STATEFUL_RUNS sets the number of sequences. The run's seed is in the title; a failure prints its path and
// the shrunk sequence too, and FUZZ_SEED/FUZZ_PATH replay it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CliContext, CliError } from '../../src/cli/io.js';
import { orders } from '../../src/cli/orders.js';
import type { AdminStore } from '../../src/store/store.js';
import { apiClient, apiClientV2 } from '../support/http.js';
import { createKey, startServer } from '../support/server.js';
import { type ModelOrder, type OrderPick, orderPick, pickId } from '../support/orderModel.js';
import { learnNewOrders, newOrder, PageWalk, pageWalks } from '../support/pageWalk.js';
import { FUZZ_SEED, replay } from '../support/fuzz/seed.js';

const RUNS = Number(process.env.STATEFUL_RUNS ?? 40);

interface Model {
  orders: Map<number, ModelOrder>;
  messages: string[];
}

interface Real {
  client: ReturnType<typeof apiClient>;
  clientV2: ReturnType<typeof apiClientV2>;
  store: AdminStore;
  /** The CLI's own code on its own connection to the same file, as the `store-orders` binary runs it. */
  cli(verb: 'add' | 'ship', args: string[]): Promise<unknown>;
  storedMessages(): Promise<string[]>;
}

class ListOrders implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    const { data, response } = await real.client.GET('/store/orders');
    expect(response.status).toBe(200);
    const expected = [...model.orders]
      .filter(([, order]) => order.status !== 'cancelled')
      .sort(([a], [b]) => a - b)
      .map(([id, { petId, quantity, shipDate, complete }]) => ({
        id,
        petId,
        quantity,
        ...(shipDate !== undefined && { shipDate }),
        complete,
      }));
    expect(data).toEqual(expected);
  }
  toString = () => 'listOrders';
}

/** cancelOrder through /v1 or /v2, whose rules are the same. */
class CancelOrder implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: OrderPick,
    readonly version: 'v1' | 'v2' = 'v1',
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const orderId = pickId(model, this.pick);
    const order = model.orders.get(orderId);
    const request = { params: { path: { orderId } } };
    const { error, response } =
      this.version === 'v1'
        ? await real.client.DELETE('/store/orders/{orderId}', request)
        : await real.clientV2.DELETE('/store/orders/{orderId}', request);
    if (order?.status === 'pending') {
      expect(response.status).toBe(204);
      order.status = 'cancelled';
    } else if (order?.status === 'shipped') {
      expect([response.status, error?.code]).toEqual([409, 'order_already_shipped']);
    } else {
      expect([response.status, error?.code]).toEqual([404, 'order_not_found']);
    }
  }
  toString = () => `${this.version === 'v1' ? '' : `${this.version} `}cancelOrder(${JSON.stringify(this.pick)})`;
}

class SendMessage implements fc.AsyncCommand<Model, Real> {
  constructor(readonly text: string) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const { data, response } = await real.client.POST('/messages', { body: { message: this.text } });
    expect(response.status).toBe(202);
    expect(data?.message).toBe(this.text);
    model.messages.push(this.text);
    expect(await real.storedMessages()).toEqual(model.messages);
  }
  toString = () => `sendMessage(${JSON.stringify(this.text)})`;
}

class CliAddOrder implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly petId: number,
    readonly quantity: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const added = (await real.cli('add', ['--pet-id', String(this.petId), '--quantity', String(this.quantity)])) as {
      id: number;
      status: string;
    };
    expect(added.status).toBe('pending');
    expect(model.orders.has(added.id)).toBe(false);
    model.orders.set(added.id, { petId: this.petId, quantity: this.quantity, complete: false, status: 'pending' });
  }
  toString = () => `cli orders add --pet-id ${this.petId} --quantity ${this.quantity}`;
}

class CliShipOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: OrderPick) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const orderId = pickId(model, this.pick);
    const order = model.orders.get(orderId);
    if (order?.status === 'pending') {
      expect(await real.cli('ship', [String(orderId)])).toMatchObject({ id: orderId, status: 'shipped' });
      order.status = 'shipped';
    } else {
      // A cancelled, shipped or unknown order cannot ship, and the CLI says so.
      await expect(real.cli('ship', [String(orderId)])).rejects.toThrow(CliError);
    }
  }
  toString = () => `cli orders ship ${JSON.stringify(this.pick)}`;
}

const commands = [
  fc.constant(new ListOrders()),
  orderPick.map((pick) => new CancelOrder(pick)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map((text) => new SendMessage(text)),
  fc
    .tuple(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 100 }))
    .map(([petId, quantity]) => new CliAddOrder(petId, quantity)),
  orderPick.map((pick) => new CliShipOrder(pick)),
  orderPick.map((pick) => new CancelOrder(pick, 'v2')),
  pageWalks.map((walk) => new PageWalk(walk)),
];

describe('generated sequences of API calls and CLI commands', () => {
  it(
    `agree with the model of order states after every step (${RUNS} sequences, seed ${FUZZ_SEED})`,
    { timeout: 0 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(newOrder, { maxLength: 12 }), fc.commands(commands, { maxCommands: 30 }), async (initial, sequence) => {
          const server = await startServer();
          try {
            const { key } = await createKey(server.store);
            const real: Real = {
              client: apiClient(server.baseUrl, key),
              clientV2: apiClientV2(server.baseUrl, key),
              store: server.store,
              async cli(verb, args) {
                const lines: string[] = [];
                const context: CliContext = {
                  env: { DATABASE_URL: server.dbPath },
                  out: (line) => lines.push(line),
                  note: () => undefined,
                };
                await orders.verbs[verb]!.run(context, args);
                return JSON.parse(lines.join('\n')) as unknown;
              },
              storedMessages: async () => (await server.store.messages.listMessages()).map((message) => message.message),
            };
            // Some orders to start from, imported as the operator would.
            const model: Model = { orders: new Map(), messages: [] };
            await server.store.orders.importOrders(initial);
            await learnNewOrders(model, server.store);
            await fc.asyncModelRun(() => ({ model, real }), sequence);
          } finally {
            await server.close();
          }
        }),
        { numRuns: RUNS, ...replay },
      );
    },
  );
});
