// `store-orders init --examples`: the records that the contracts' examples name, so that a contract-testing
// tool given either contract, unmodified, finds on the server what the examples say: the orders of v2's
// listOrders example in their statuses (a pending one to cancel, a shipped one for the 409), the pet of
// getPetById's, and the message of getMessage's, all read from the contracts themselves.
import type { OpenAPIV3 } from 'openapi-types';
import { loadContracts } from '../contract/document.js';
import type { AdminStore, MessageWithStatus, OrderWithStatus, Pet, Principal } from '../store/store.js';
import { CliError } from './io.js';

/** The account that owns the example message, and whose keys `init --examples` prints. */
export const EXAMPLES_ACCOUNT = 'examples';

export interface ExampleRecords {
  orders: OrderWithStatus[];
  pets: Pet[];
  messages: MessageWithStatus[];
}

/** The 200 example of the GET operation at `path`. */
function getExample(document: OpenAPIV3.Document, path: string): unknown {
  const ok = document.paths[path]?.get?.responses['200'] as OpenAPIV3.ResponseObject | undefined;
  const example = ok?.content?.['application/json']?.example as unknown;
  if (example === undefined) throw new Error(`the contract has no 200 example for GET ${path}`);
  return example;
}

/** What the contracts' examples name, in the order a new database issues their ids. */
export function exampleRecords(): ExampleRecords {
  const { v1, v2 } = loadContracts();
  return {
    orders: (getExample(v2.document, '/store/orders') as { data: OrderWithStatus[] }).data,
    pets: [getExample(v1.document, '/pets/{petId}') as Pet],
    messages: [getExample(v2.document, '/messages/{messageId}') as MessageWithStatus],
  };
}

type Holding = 'nothing' | 'the examples' | 'other data';

/** Whether the store is new, holds exactly the examples (an earlier `init --examples`), or anything else. */
async function holding(store: AdminStore, records: ExampleRecords): Promise<Holding> {
  const [orders, messages, keys] = await Promise.all([
    store.orders.listAllOrders(),
    store.messages.listMessages(),
    store.keys.listKeys(),
  ]);
  // Pets are issued ids from 1 up and never deleted: the one after the last example's tells of any other.
  const pets = await Promise.all(
    [...records.pets, { id: records.pets.length + 1 }].map(({ id }) => store.pets.findPet(id)),
  );
  if (orders.length + messages.length + keys.length === 0 && pets.every((pet) => pet === undefined)) return 'nothing';
  const same =
    sameRecords(orders, records.orders, ['id', 'petId', 'quantity', 'shipDate', 'complete', 'status']) &&
    sameRecords(messages, records.messages, ['id', 'message', 'status', 'createdAt']) &&
    messages.every(({ account }) => account === EXAMPLES_ACCOUNT) &&
    keys.every(({ account }) => account === EXAMPLES_ACCOUNT) &&
    sameRecords(pets.slice(0, -1), records.pets, ['id', 'name']) &&
    pets.at(-1) === undefined;
  return same ? 'the examples' : 'other data';
}

function sameRecords<T extends object>(found: readonly (T | undefined)[], wanted: readonly T[], fields: (keyof T)[]) {
  return (
    found.length === wanted.length &&
    wanted.every((record, index) => fields.every((field) => found[index]?.[field] === record[field]))
  );
}

/**
 * Writes the example records into a new store, checking that each gets the id its example shows; a store that
 * already holds them is left as it is. Anything else in the store is refused: this is for test servers.
 */
export async function writeExamples(store: AdminStore, caller: Principal, records: ExampleRecords): Promise<void> {
  for (const { id, status, ...order } of records.orders) {
    if (status === 'cancelled') throw new Error(`the example order ${id} is cancelled: the API never shows one`);
    expectId('order', id, (await store.orders.addOrder({ ...order, status })).id);
  }
  for (const { id, name } of records.pets) expectId('pet', id, (await store.pets.addPet(name)).id);
  for (const { id, message, status, createdAt, updatedAt } of records.messages) {
    // A server without MESSAGE_WEBHOOK_URL keeps a message queued for good, so only that example comes true.
    if (status !== 'queued' || updatedAt !== createdAt) {
      throw new Error(`the example message ${id} must be queued since its creation, as a server that delivers nothing keeps it`);
    }
    await store.messages.enqueueMessage({ id, message, createdAt }, caller);
  }
}

function expectId(what: string, wanted: number, issued: number): void {
  if (issued !== wanted) {
    throw new Error(`the example ${what} ${wanted} was stored as ${issued}: examples must use the ids a new database issues, from 1`);
  }
}

/** Refuses a store that holds anything but the examples; answers whether they are still to be written. */
export async function examplesToWrite(store: AdminStore, records: ExampleRecords): Promise<boolean> {
  const found = await holding(store, records);
  if (found === 'other data') {
    throw new CliError(
      'the database holds data other than the examples: `init --examples` is for a new test server\'s database',
    );
  }
  return found === 'nothing';
}
