// `store-orders init --examples`: the records that the contracts' examples name, so that a contract-testing
// tool given either contract, unmodified, finds on the server what the examples say: the orders of v2's
// listOrders example in their statuses (a pending one to cancel, a shipped one for the 409), the pet of
// getPetById's, the message of getMessage's, and the webhook endpoints of listWebhookEndpoints' with the
// attempts of listWebhookDeliveries', all read from the contracts themselves.
import type { OpenAPIV3 } from 'openapi-types';
import { loadContracts } from '../contract/document.js';
import { newSecret } from '../delivery/signature.js';
import type {
  AdminStore,
  MessageWithStatus,
  OrderWithStatus,
  Pet,
  Principal,
  WebhookDelivery,
  WebhookEndpoint,
} from '../store/store.js';
import { CliError } from './io.js';

/** The account that owns the example message, and whose keys `init --examples` prints. */
export const EXAMPLES_ACCOUNT = 'examples';

export interface ExampleRecords {
  orders: OrderWithStatus[];
  pets: Pet[];
  messages: MessageWithStatus[];
  webhookEndpoints: WebhookEndpoint[];
  /** Of the endpoint `endpointId`, newest first. */
  webhookDeliveries: { endpointId: string; attempts: WebhookDelivery[] };
}

/** The 200 example of the GET operation at `path`. */
function getExample(document: OpenAPIV3.Document, path: string): unknown {
  const ok = document.paths[path]?.get?.responses['200'] as OpenAPIV3.ResponseObject | undefined;
  const example = ok?.content?.['application/json']?.example as unknown;
  if (example === undefined) throw new Error(`the contract has no 200 example for GET ${path}`);
  return example;
}

/** The example of the path parameter of the GET operation at `path`. */
function pathExample(document: OpenAPIV3.Document, path: string): string {
  const parameter = document.paths[path]?.get?.parameters?.[0] as OpenAPIV3.ReferenceObject | undefined;
  const name = parameter?.$ref.replace('#/components/parameters/', '') ?? '';
  const example = (document.components?.parameters?.[name] as OpenAPIV3.ParameterObject | undefined)?.example as unknown;
  if (typeof example !== 'string') throw new Error(`the contract has no example for the path parameter of GET ${path}`);
  return example;
}

/** What the contracts' examples name, in the order a new database issues their ids. */
export function exampleRecords(): ExampleRecords {
  const { v1, v2 } = loadContracts();
  return {
    orders: (getExample(v2.document, '/store/orders') as { data: OrderWithStatus[] }).data,
    pets: [getExample(v1.document, '/pets/{petId}') as Pet],
    messages: [getExample(v2.document, '/messages/{messageId}') as MessageWithStatus],
    webhookEndpoints: (getExample(v2.document, '/webhook-endpoints') as { data: WebhookEndpoint[] }).data,
    webhookDeliveries: {
      endpointId: pathExample(v2.document, '/webhook-endpoints/{endpointId}/deliveries'),
      attempts: (getExample(v2.document, '/webhook-endpoints/{endpointId}/deliveries') as { data: WebhookDelivery[] }).data,
    },
  };
}

type Holding = 'nothing' | 'the examples' | 'other data';

/** Whether the store is new, holds exactly the examples (an earlier `init --examples`), or anything else. */
async function holding(store: AdminStore, records: ExampleRecords): Promise<Holding> {
  const [orders, messages, keys, account] = await Promise.all([
    store.orders.listAllOrders(),
    store.messages.listMessages(),
    store.keys.listKeys(),
    store.keys.findAccount(EXAMPLES_ACCOUNT),
  ]);
  const endpoints = account ? (await store.webhooks.listEndpoints(account.id, 0, 100)).items : [];
  // Pets are issued ids from 1 up and never deleted: the one after the last example's tells of any other.
  const pets = await Promise.all(
    [...records.pets, { id: records.pets.length + 1 }].map(({ id }) => store.pets.findPet(id)),
  );
  if (orders.length + messages.length + keys.length === 0 && pets.every((pet) => pet === undefined)) return 'nothing';
  const same =
    sameRecords(orders, records.orders, ['id', 'petId', 'quantity', 'shipDate', 'complete', 'status']) &&
    sameRecords(messages, records.messages, ['id', 'message', 'status', 'createdAt']) &&
    sameRecords(endpoints, records.webhookEndpoints, ['id', 'url', 'status', 'createdAt', 'updatedAt']) &&
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
  await writeWebhookExamples(store, caller, records);
}

/** The endpoints, enabled or disabled by their client as the example shows them, and the attempts, oldest first. */
async function writeWebhookExamples(store: AdminStore, caller: Principal, records: ExampleRecords): Promise<void> {
  for (const { id, url, events, description, status, disabledReason, createdAt, updatedAt } of records.webhookEndpoints) {
    const endpoint = { id, url, events, ...(description !== undefined && { description }), secret: newSecret(), createdAt };
    await store.webhooks.createEndpoint(caller.accountId, endpoint, Number.POSITIVE_INFINITY);
    if (status === 'disabled' && disabledReason === 'client') {
      await store.webhooks.updateEndpoint(caller.accountId, id, { status }, updatedAt);
    } else if (status !== 'enabled' || updatedAt !== createdAt) {
      throw new Error(`the example endpoint ${id} must be enabled since its creation, or disabled by its client`);
    }
  }
  const { endpointId, attempts } = records.webhookDeliveries;
  for (const attempt of [...attempts].reverse()) await store.webhooks.recordAttempt({ ...attempt, endpointId });
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
