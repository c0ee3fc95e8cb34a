// One request for every answer the contract documents: each status of each operation of openapi.yaml (its
// `default` read as every 5xx code of the Error table), plus the answers outside any operation. Tests that
// must hold on every path (the canary key, the RateLimit fields) run this table, and `uncoveredAnswers`
// names whatever openapi.yaml documents that it does not reach, so a new status cannot be left out.
import { Agent, request } from 'node:http';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { OperationId } from '../../src/contract/types.js';
import { handlers as defaultHandlers } from '../../src/operations/index.js';
import type { Handlers } from '../../src/operations/handler.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { contractViolations } from './contract.js';
import { document, type Json } from './document.js';
import type { TestServer } from './server.js';

export interface Answer {
  label: string;
  operationId: OperationId | undefined;
  status: number;
  headers: Headers;
  bodyText: string;
  /** The server knew the caller's key when it answered: the per-key quota counted the request. */
  keyKnown: boolean;
}

/** Faults the handlers raise on demand, and a signal when a handler starts. */
export interface HandlerControl {
  failure: Error | undefined;
  entered: ((operationId: OperationId) => void) | undefined;
}

/** The real handlers, each of which first raises `control.failure` when set. */
export function controllableHandlers(control: HandlerControl): Handlers {
  const wrapped: Record<string, unknown> = {};
  for (const [operationId, handler] of Object.entries(defaultHandlers)) {
    wrapped[operationId] = (input: unknown, dependencies: unknown) => {
      if (control.failure) throw control.failure;
      const result = (handler as (input: unknown, dependencies: unknown) => unknown)(input, dependencies);
      control.entered?.(operationId as OperationId);
      return result;
    };
  }
  return wrapped as unknown as Handlers;
}

/** The store's own failure, as a backend raises it for a busy database or a full disk. */
export function storeUnavailable(reason: 'busy' | 'storage'): Error {
  return new StoreUnavailableError(reason, 'injected by the test', reason === 'busy' ? 1 : 5);
}

interface Sent {
  method?: string;
  path: string;
  /** An array value is sent as that many separate fields. */
  headers?: Record<string, string | string[]>;
  body?: string;
}

/** Sends requests over node:http (which can repeat a field), checks each answer against the contract. */
export class CheckedClient {
  readonly answers: Answer[] = [];
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 32 });

  constructor(readonly server: TestServer) {}

  async send(
    label: string,
    operationId: OperationId | undefined,
    keyKnown: boolean,
    { method = 'GET', path, headers = {}, body }: Sent,
  ): Promise<Answer> {
    const { port } = new URL(this.server.baseUrl);
    const { status, rawHeaders, bodyText } = await new Promise<{
      status: number;
      rawHeaders: string[];
      bodyText: string;
    }>((resolve, reject) => {
      const outgoing = request(
        { host: '127.0.0.1', port, method, path, agent: this.#agent, headers },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, rawHeaders: response.rawHeaders, bodyText: text }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    const received = new Headers();
    for (let i = 0; i < rawHeaders.length; i += 2)
      received.append(rawHeaders[i] as string, rawHeaders[i + 1] as string);
    const problems = contractViolations({
      method,
      path: path.split('?')[0] as string,
      status,
      headers: received,
      bodyText,
    });
    // The 5xx here are caused on purpose, so being one is the only complaint they may have.
    const unexpected = problems.filter((problem) => !/^server error (500|501|503)/.test(problem));
    expect(unexpected, `${label}: ${method} ${path}`).toEqual([]);
    const answer = { label, operationId, status, headers: received, bodyText, keyKnown };
    this.answers.push(answer);
    return answer;
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** A case of the table: what it is meant to answer, and how to make the server answer it. */
export interface AnswerCase {
  label: string;
  operationId: OperationId | undefined;
  status: number;
  code?: string;
  keyKnown: boolean;
  run(client: CheckedClient): Promise<Answer>;
}

/**
 * The answers every operation gives on a server with no quota in reach, in a fixed order, for `key`.
 * `control` is the one given to `controllableHandlers` on that server. The 503 of a held write lock and
 * the 409 of an Idempotency-Key in flight need the lock held: see `answersUnderWriteLock`.
 */
export async function everyAnswerCases(
  server: TestServer,
  key: string,
  control: HandlerControl,
): Promise<AnswerCase[]> {
  const auth = { Authorization: `Bearer ${key}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const wrongKey = { Authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}` };
  const shipped = (await server.store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' })).id;
  const pet = (await server.store.pets.addPet('Rex')).id;
  let sequence = 0;

  const cases: AnswerCase[] = [];
  const add = (
    label: string,
    operationId: OperationId | undefined,
    status: number,
    code: string | undefined,
    keyKnown: boolean,
    run: (client: CheckedClient, label: string) => Promise<Answer>,
  ) => {
    cases.push({
      label,
      operationId,
      status,
      ...(code !== undefined && { code }),
      keyKnown,
      run: (client) => run(client, label),
    });
  };
  const simple = (
    label: string,
    operationId: OperationId | undefined,
    status: number,
    code: string | undefined,
    keyKnown: boolean,
    sent: Sent,
  ) =>
    add(label, operationId, status, code, keyKnown, (client) =>
      client.send(label, operationId, keyKnown, sent),
    );

  const requests: Record<OperationId, (headers: Record<string, string | string[]>) => Sent> = {
    listOrders: (headers) => ({ path: '/v1/store/orders', headers }),
    cancelOrder: (headers) => ({ method: 'DELETE', path: '/v1/store/orders/999999', headers }),
    sendMessage: (headers) => ({
      method: 'POST',
      path: '/v1/messages',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: '{"message":"hi"}',
    }),
    getPetById: (headers) => ({ path: `/v1/pets/${pet}`, headers }),
  };

  // listOrders
  simple('listOrders 200', 'listOrders', 200, undefined, true, requests.listOrders(auth));
  add('listOrders 304', 'listOrders', 304, undefined, true, async (client, label) => {
    const listed = await client.send(`${label} (its ETag)`, 'listOrders', true, requests.listOrders(auth));
    const etag = listed.headers.get('etag') ?? '';
    return client.send(label, 'listOrders', true, requests.listOrders({ ...auth, 'If-None-Match': etag }));
  });
  simple('listOrders 400 query', 'listOrders', 400, 'invalid_request', true, {
    path: '/v1/store/orders?limit=1',
    headers: auth,
  });
  // cancelOrder
  add('cancelOrder 204', 'cancelOrder', 204, undefined, true, async (client, label) => {
    const { id } = await server.store.orders.addOrder({ petId: 2, quantity: 1 });
    const path = `/v1/store/orders/${id}`;
    return client.send(label, 'cancelOrder', true, { method: 'DELETE', path, headers: auth });
  });
  simple('cancelOrder 400 id', 'cancelOrder', 400, 'invalid_request', true, {
    method: 'DELETE',
    path: '/v1/store/orders/abc',
    headers: auth,
  });
  simple('cancelOrder 404', 'cancelOrder', 404, 'order_not_found', true, requests.cancelOrder(auth));
  simple('cancelOrder 409', 'cancelOrder', 409, 'order_already_shipped', true, {
    method: 'DELETE',
    path: `/v1/store/orders/${shipped}`,
    headers: auth,
  });
  // sendMessage
  simple('sendMessage 202', 'sendMessage', 202, undefined, true, requests.sendMessage(auth));
  const post = (headers: Record<string, string | string[]>, body: string): Sent => ({
    method: 'POST',
    path: '/v1/messages',
    headers,
    body,
  });
  simple('sendMessage 400 invalid_request', 'sendMessage', 400, 'invalid_request', true, post(json, '{}'));
  simple('sendMessage 400 invalid_json', 'sendMessage', 400, 'invalid_json', true, post(json, '{'));
  const plain = post(auth, 'x');
  simple('sendMessage 400 content type', 'sendMessage', 400, 'unsupported_content_type', true, plain);
  simple(
    'sendMessage 400 repeated Content-Type',
    'sendMessage',
    400,
    'unsupported_content_type',
    true,
    post({ ...auth, 'Content-Type': ['application/json', 'application/json'] }, '{"message":"hi"}'),
  );
  simple('sendMessage 413', 'sendMessage', 413, 'payload_too_large', true, post(json, 'x'.repeat(1_100_000)));
  simple(
    'sendMessage 415',
    'sendMessage',
    415,
    'unsupported_content_encoding',
    true,
    post({ ...json, 'Content-Encoding': 'gzip' }, '{"message":"x"}'),
  );
  add('sendMessage 422', 'sendMessage', 422, 'idempotency_key_reused', true, async (client, label) => {
    const headers = { ...json, 'Idempotency-Key': `reused-${sequence++}` };
    await client.send(`${label} (first use)`, 'sendMessage', true, post(headers, '{"message":"first"}'));
    return client.send(label, 'sendMessage', true, post(headers, '{"message":"second"}'));
  });
  // getPetById
  simple('getPetById 200', 'getPetById', 200, undefined, true, requests.getPetById(auth));
  const pets = (id: string): Sent => ({ path: `/v1/pets/${id}`, headers: auth });
  simple('getPetById 400 id', 'getPetById', 400, 'invalid_request', true, pets('abc'));
  simple('getPetById 404', 'getPetById', 404, 'pet_not_found', true, pets('999999'));

  for (const operationId of Object.keys(requests) as OperationId[]) {
    const of = requests[operationId];
    simple(`${operationId} 401 wrong key`, operationId, 401, 'unauthorized', false, of(wrongKey));
    simple(`${operationId} 401 no key`, operationId, 401, 'unauthorized', false, of({}));
    simple(`${operationId} 401 repeated Authorization`, operationId, 401, 'unauthorized', false, of({
      Authorization: [auth.Authorization, auth.Authorization],
    }));
    const failing = (label: string, status: number, code: string, failure: Error) =>
      add(label, operationId, status, code, true, async (client) => {
        control.failure = failure;
        try {
          return await client.send(label, operationId, true, of(auth));
        } finally {
          control.failure = undefined;
        }
      });
    failing(`${operationId} 500`, 500, 'internal_error', new Error('an unexpected failure in the handler'));
    failing(`${operationId} 503 busy`, 503, 'service_unavailable', storeUnavailable('busy'));
    failing(`${operationId} 503 disk`, 503, 'storage_unavailable', storeUnavailable('storage'));
    // A transfer coding the server does not decode, refused before the request is looked at further.
    simple(`${operationId} 501`, operationId, 501, 'not_implemented', false, {
      ...of(auth),
      headers: { ...of(auth).headers, 'Transfer-Encoding': 'gzip, chunked' },
      body: '',
    });
  }

  // Outside any operation: routing answers before the key is looked at.
  simple('unknown path 404', undefined, 404, 'not_found', false, { path: '/v1/nope', headers: auth });
  simple('wrong method 405', undefined, 405, 'method_not_allowed', false, {
    method: 'PUT',
    path: '/v1/store/orders',
    headers: auth,
  });
  return cases;
}

/**
 * Another connection holds the write lock past the server's write wait: 10 messages get 503, and a second
 * request with the Idempotency-Key of one still waiting gets 409. `control` must be the server's.
 */
export async function answersUnderWriteLock(
  client: CheckedClient,
  key: string,
  control: HandlerControl,
): Promise<Answer[]> {
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const message = (extra: Record<string, string> = {}): Sent => ({
    method: 'POST',
    path: '/v1/messages',
    headers: { ...headers, ...extra },
    body: '{"message":"x"}',
  });
  const holder = new Database(client.server.dbPath);
  holder.exec('BEGIN IMMEDIATE');
  try {
    const entered = new Promise<void>((resolve) => {
      control.entered = () => resolve();
    });
    const waiting = client.send(
      'sendMessage 503 lock (idempotent)',
      'sendMessage',
      true,
      message({ 'Idempotency-Key': 'locked' }),
    );
    await entered;
    control.entered = undefined;
    const inFlight = await client.send(
      'sendMessage 409 in flight',
      'sendMessage',
      true,
      message({ 'Idempotency-Key': 'locked' }),
    );
    const busy = await Promise.all(
      Array.from({ length: 10 }, () => client.send('sendMessage 503 lock', 'sendMessage', true, message())),
    );
    return [await waiting, inFlight, ...busy];
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
}

/** What `answersUnderWriteLock` must answer, by label. */
export const UNDER_WRITE_LOCK: Record<string, { status: number; code: string }> = {
  'sendMessage 503 lock (idempotent)': { status: 503, code: 'service_unavailable' },
  'sendMessage 409 in flight': { status: 409, code: 'idempotency_key_in_use' },
  'sendMessage 503 lock': { status: 503, code: 'service_unavailable' },
};

/** Every (operation, status) pair openapi.yaml documents; `default` stands for each 5xx of the Error table. */
export function documentedAnswers(): { operationId: OperationId; status: number }[] {
  const statuses = errorCodeTable().map(({ status }) => status);
  const serverErrors = [...new Set(statuses.filter((status) => status >= 500))];
  const pairs: { operationId: OperationId; status: number }[] = [];
  for (const item of Object.values(document.paths as Json)) {
    for (const operation of Object.values(item as Json)) {
      const { operationId, responses } = operation as { operationId?: OperationId; responses?: Json };
      if (!operationId || !responses) continue;
      for (const status of Object.keys(responses)) {
        if (status === 'default') for (const code of serverErrors) pairs.push({ operationId, status: code });
        else pairs.push({ operationId, status: Number(status) });
      }
    }
  }
  return pairs;
}

/** The rows of the code table in the Error schema's description. */
export function errorCodeTable(): { code: string; status: number }[] {
  const { schemas } = document.components as { schemas: Record<string, { description: string }> };
  const { description } = schemas.Error as { description: string };
  return [...description.matchAll(/^\| `([a-z_]+)` \| ([0-9]{3}) \|/gm)].map((row) => ({
    code: row[1] as string,
    status: Number(row[2]),
  }));
}

/** The documented (operation, status) pairs none of `answers` shows, as `operationId status` lines. */
export function uncoveredAnswers(
  answers: readonly Pick<Answer, 'operationId' | 'status'>[],
  leaveOut: (pair: { operationId: OperationId; status: number }) => boolean = () => false,
): string[] {
  const seen = new Set(answers.map(({ operationId, status }) => `${operationId} ${status}`));
  return documentedAnswers()
    .filter((pair) => !leaveOut(pair))
    .map(({ operationId, status }) => `${operationId} ${status}`)
    .filter((pair) => !seen.has(pair));
}

/** The Error code of an answer, or undefined when its body is not an Error. */
export function codeOf(answer: Pick<Answer, 'bodyText'>): string | undefined {
  try {
    return (JSON.parse(answer.bodyText) as { code?: string }).code;
  } catch {
    return undefined;
  }
}
