// One request for every answer the contracts document: each status of each operation of openapi.yaml and
// openapi.v2.yaml (its `default` read as every 5xx code of the Error table), plus the answers outside any
// operation. Tests that must hold on every path (the canary key, the RateLimit fields) run this table, and
// `uncoveredAnswers` names whatever a contract documents that it does not reach, so a new status cannot be
// left out.
import { Agent, request } from 'node:http';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { handlersByVersion } from '../../src/operations/index.js';
import type { HandlersByVersion } from '../../src/operations/handler.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { contractViolations } from './contract.js';
import { wrongKey } from './http.js';
import { documents, type Json, requiredScope, type Version } from './document.js';
import type { TestServer } from './server.js';

/** An operation of either version, as the table names it (see operationName). */
export type OperationName = string;

export interface Answer {
  label: string;
  operationId: OperationName | undefined;
  status: number;
  headers: Headers;
  bodyText: string;
  /** The server knew the caller's key when it answered: the per-key quota counted the request. */
  keyKnown: boolean;
}

/** Faults the handlers raise on demand, and a signal when a handler starts. */
export interface HandlerControl {
  failure: Error | undefined;
  entered: ((operationId: string) => void) | undefined;
}

/** The real handlers of both versions, each of which first raises `control.failure` when set. */
export function controllableHandlers(control: HandlerControl): HandlersByVersion {
  const wrap = (handlers: object) => {
    const wrapped: Record<string, unknown> = {};
    for (const [operationId, handler] of Object.entries(handlers)) {
      wrapped[operationId] = (input: unknown, dependencies: unknown) => {
        if (control.failure) throw control.failure;
        const result = (handler as (input: unknown, dependencies: unknown) => unknown)(input, dependencies);
        control.entered?.(operationId);
        return result;
      };
    }
    return wrapped;
  };
  return { v1: wrap(handlersByVersion.v1), v2: wrap(handlersByVersion.v2) } as unknown as HandlersByVersion;
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
    operationId: OperationName | undefined,
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
  operationId: OperationName | undefined;
  status: number;
  code?: string;
  keyKnown: boolean;
  run(client: CheckedClient): Promise<Answer>;
}

/**
 * The answers every operation of both versions gives on a server with no quota in reach, in a fixed order,
 * for `key`. `control` is the one given to `controllableHandlers` on that server. The 503 of a held write
 * lock and the 409 of an Idempotency-Key in flight need the lock held: see `answersUnderWriteLock`. The
 * 403 of a missing scope needs a key of no scope: `scopeless`, whose cases are labelled `… 403`.
 */
export async function everyAnswerCases(
  server: TestServer,
  key: string,
  control: HandlerControl,
  scopeless?: string,
): Promise<AnswerCase[]> {
  const shipped = (await server.store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' })).id;
  // A second order for v2's pages: a page of one has a next page, and so a cursor.
  await server.store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' });
  const pet = (await server.store.pets.addPet('Rex')).id;
  const cases: AnswerCase[] = [];
  for (const version of ['v1', 'v2'] as const) {
    cases.push(...casesOf({ version, server, key, control, shipped, pet, scopeless }));
  }
  return cases;
}

interface CaseContext {
  version: Version;
  server: TestServer;
  key: string;
  control: HandlerControl;
  shipped: number;
  pet: number;
  scopeless: string | undefined;
}

/** One version's cases; its operations are named as operationName() names them. */
function casesOf({ version, server, key, control, shipped, pet, scopeless }: CaseContext): AnswerCase[] {
  const root = `/${version}`;
  const named = (operationId: string) => operationName(version, operationId);
  const auth = { Authorization: `Bearer ${key}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const wrongAuth = { Authorization: `Bearer ${wrongKey(key)}` };
  let sequence = 0;

  const cases: AnswerCase[] = [];
  const add = (
    label: string,
    status: number,
    code: string | undefined,
    keyKnown: boolean,
    run: (client: CheckedClient, label: string, operationId: OperationName) => Promise<Answer>,
  ) => {
    const operationId = named(label.split(' ', 1)[0] as string);
    const fullLabel = version === 'v1' ? label : `${version} ${label}`;
    cases.push({
      label: fullLabel,
      operationId,
      status,
      ...(code !== undefined && { code }),
      keyKnown,
      run: (client) => run(client, fullLabel, operationId),
    });
  };
  const simple = (label: string, status: number, code: string | undefined, keyKnown: boolean, sent: Sent) =>
    add(label, status, code, keyKnown, (client, fullLabel, operationId) =>
      client.send(fullLabel, operationId, keyKnown, sent),
    );

  const requests: Record<string, (headers: Record<string, string | string[]>) => Sent> = {
    listOrders: (headers) => ({ path: `${root}/store/orders`, headers }),
    cancelOrder: (headers) => ({ method: 'DELETE', path: `${root}/store/orders/999999`, headers }),
    sendMessage: (headers) => ({
      method: 'POST',
      path: `${root}/messages`,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: '{"message":"hi"}',
    }),
    ...(version === 'v1' && { getPetById: (headers) => ({ path: `${root}/pets/${pet}`, headers }) }),
    ...(version === 'v2' && {
      getMessage: (headers) => ({ path: `${root}/messages/msg_${'0'.repeat(22)}`, headers }),
      ...webhookRequests(root),
    }),
  };
  const list = (query: string): Sent => ({ path: `${root}/store/orders${query}`, headers: auth });

  // listOrders
  simple('listOrders 200', 200, undefined, true, requests.listOrders!(auth));
  add('listOrders 304', 304, undefined, true, async (client, label, operationId) => {
    const listed = await client.send(`${label} (its ETag)`, operationId, true, requests.listOrders!(auth));
    const etag = listed.headers.get('etag') ?? '';
    return client.send(label, operationId, true, requests.listOrders!({ ...auth, 'If-None-Match': etag }));
  });
  simple('listOrders 400 query', 400, 'invalid_request', true, list(version === 'v1' ? '?limit=1' : '?offset=1'));
  if (version === 'v2') {
    simple('listOrders 400 limit', 400, 'limit_out_of_range', true, list('?limit=1001'));
    simple('listOrders 400 cursor', 400, 'invalid_cursor', true, list('?cursor=abc'));
    add('listOrders 400 other filters', 400, 'cursor_mismatch', true, async (client, label, operationId) => {
      const first = await client.send(`${label} (its ETag)`, operationId, true, list('?limit=1'));
      const { nextCursor } = JSON.parse(first.bodyText) as { nextCursor: string };
      return client.send(label, operationId, true, list(`?limit=1&status=shipped&cursor=${nextCursor}`));
    });
  }
  // cancelOrder
  add('cancelOrder 204', 204, undefined, true, async (client, label, operationId) => {
    const { id } = await server.store.orders.addOrder({ petId: 2, quantity: 1 });
    return client.send(label, operationId, true, { method: 'DELETE', path: `${root}/store/orders/${id}`, headers: auth });
  });
  simple('cancelOrder 400 id', 400, 'invalid_request', true, { method: 'DELETE', path: `${root}/store/orders/abc`, headers: auth });
  simple('cancelOrder 404', 404, 'order_not_found', true, requests.cancelOrder!(auth));
  simple('cancelOrder 409', 409, 'order_already_shipped', true, {
    method: 'DELETE',
    path: `${root}/store/orders/${shipped}`,
    headers: auth,
  });
  // sendMessage
  simple('sendMessage 202', 202, undefined, true, requests.sendMessage!(auth));
  const post = (headers: Record<string, string | string[]>, body: string): Sent => ({
    method: 'POST',
    path: `${root}/messages`,
    headers,
    body,
  });
  simple('sendMessage 400 invalid_request', 400, 'invalid_request', true, post(json, '{}'));
  simple('sendMessage 400 invalid_json', 400, 'invalid_json', true, post(json, '{'));
  simple('sendMessage 400 content type', 400, 'unsupported_content_type', true, post(auth, 'x'));
  simple(
    'sendMessage 400 repeated Content-Type',
    400,
    'unsupported_content_type',
    true,
    post({ ...auth, 'Content-Type': ['application/json', 'application/json'] }, '{"message":"hi"}'),
  );
  simple('sendMessage 413', 413, 'payload_too_large', true, post(json, 'x'.repeat(1_100_000)));
  simple('sendMessage 415', 415, 'unsupported_content_encoding', true, post({ ...json, 'Content-Encoding': 'gzip' }, '{"message":"x"}'));
  add('sendMessage 422', 422, 'idempotency_key_reused', true, async (client, label, operationId) => {
    const headers = { ...json, 'Idempotency-Key': `reused-${version}-${sequence++}` };
    await client.send(`${label} (first use)`, operationId, true, post(headers, '{"message":"first"}'));
    return client.send(label, operationId, true, post(headers, '{"message":"second"}'));
  });
  // getMessage, in v2 only
  if (version === 'v2') {
    add('getMessage 200', 200, undefined, true, async (client, label, operationId) => {
      const sent = await client.send(`${label} (its message)`, named('sendMessage'), true, requests.sendMessage!(auth));
      const { id } = JSON.parse(sent.bodyText) as { id: string };
      return client.send(label, operationId, true, { path: `${root}/messages/${id}`, headers: auth });
    });
    simple('getMessage 400 id', 400, 'invalid_request', true, { path: `${root}/messages/msg_short`, headers: auth });
    simple('getMessage 404', 404, 'message_not_found', true, requests.getMessage!(auth));
  }
  if (version === 'v2') webhookCases({ root, auth, json, add, simple });
  // getPetById, in v1 only
  if (version === 'v1') {
    simple('getPetById 200', 200, undefined, true, requests.getPetById!(auth));
    const pets = (id: string): Sent => ({ path: `${root}/pets/${id}`, headers: auth });
    simple('getPetById 400 id', 400, 'invalid_request', true, pets('abc'));
    simple('getPetById 404', 404, 'pet_not_found', true, pets('999999'));
  }

  for (const [operationId, of] of Object.entries(requests)) {
    if (scopeless !== undefined && requiredScope(version, operationId) !== undefined) {
      simple(`${operationId} 403`, 403, 'forbidden', true, of({ Authorization: `Bearer ${scopeless}` }));
    }
    simple(`${operationId} 401 wrong key`, 401, 'unauthorized', false, of(wrongAuth));
    simple(`${operationId} 401 no key`, 401, 'unauthorized', false, of({}));
    simple(`${operationId} 401 repeated Authorization`, 401, 'unauthorized', false, of({
      Authorization: [auth.Authorization, auth.Authorization],
    }));
    const failing = (label: string, status: number, code: string, failure: Error) =>
      add(label, status, code, true, async (client, fullLabel, name) => {
        control.failure = failure;
        try {
          return await client.send(fullLabel, name, true, of(auth));
        } finally {
          control.failure = undefined;
        }
      });
    failing(`${operationId} 500`, 500, 'internal_error', new Error('an unexpected failure in the handler'));
    failing(`${operationId} 503 busy`, 503, 'service_unavailable', storeUnavailable('busy'));
    failing(`${operationId} 503 disk`, 503, 'storage_unavailable', storeUnavailable('storage'));
    // A transfer coding the server does not decode, refused before the request is looked at further.
    simple(`${operationId} 501`, 501, 'not_implemented', false, {
      ...of(auth),
      headers: { ...of(auth).headers, 'Transfer-Encoding': 'gzip, chunked' },
      body: '',
    });
  }

  // Outside any operation: routing answers before the key is looked at.
  const outside = (label: string, status: number, code: string, sent: Sent) =>
    cases.push({
      label: version === 'v1' ? label : `${version} ${label}`,
      operationId: undefined,
      status,
      code,
      keyKnown: false,
      run: (client) => client.send(label, undefined, false, sent),
    });
  outside('unknown path 404', 404, 'not_found', { path: `${root}/nope`, headers: auth });
  outside('wrong method 405', 405, 'method_not_allowed', { method: 'PUT', path: `${root}/store/orders`, headers: auth });
  return cases;
}

/** An endpoint id no account has. */
const UNKNOWN_ENDPOINT = `we_${'0'.repeat(22)}`;
const NEW_ENDPOINT = '{"url":"https://hooks.example.com/in","events":["order.shipped"]}';

/** A request of each webhook operation, naming an endpoint no account has: for the answers before the handler's. */
function webhookRequests(root: string): Record<string, (headers: Record<string, string | string[]>) => Sent> {
  const endpoints = `${root}/webhook-endpoints`;
  const withBody = (headers: Record<string, string | string[]>) => ({ 'Content-Type': 'application/json', ...headers });
  return {
    createWebhookEndpoint: (headers) => ({ method: 'POST', path: endpoints, headers: withBody(headers), body: NEW_ENDPOINT }),
    listWebhookEndpoints: (headers) => ({ path: endpoints, headers }),
    getWebhookEndpoint: (headers) => ({ path: `${endpoints}/${UNKNOWN_ENDPOINT}`, headers }),
    updateWebhookEndpoint: (headers) => ({
      method: 'PATCH',
      path: `${endpoints}/${UNKNOWN_ENDPOINT}`,
      headers: withBody(headers),
      body: '{"status":"disabled"}',
    }),
    deleteWebhookEndpoint: (headers) => ({ method: 'DELETE', path: `${endpoints}/${UNKNOWN_ENDPOINT}`, headers }),
    rotateWebhookEndpointSecret: (headers) => ({ method: 'POST', path: `${endpoints}/${UNKNOWN_ENDPOINT}/rotate-secret`, headers }),
    listWebhookDeliveries: (headers) => ({ path: `${endpoints}/${UNKNOWN_ENDPOINT}/deliveries`, headers }),
    replayWebhookEvents: (headers) => ({
      method: 'POST',
      path: `${endpoints}/${UNKNOWN_ENDPOINT}/replay`,
      headers: withBody(headers),
      body: '{"since":"2026-01-01T00:00:00Z"}',
    }),
  };
}

type Add = (
  label: string,
  status: number,
  code: string | undefined,
  keyKnown: boolean,
  run: (client: CheckedClient, label: string, operationId: OperationName) => Promise<Answer>,
) => void;

/** The webhook operations' own answers (v2): each on an endpoint the case registers first. */
function webhookCases({ root, auth, json, add, simple }: {
  root: string;
  auth: Record<string, string>;
  json: Record<string, string>;
  add: Add;
  simple: (label: string, status: number, code: string | undefined, keyKnown: boolean, sent: Sent) => void;
}): void {
  const endpoints = `${root}/webhook-endpoints`;
  const create = async (client: CheckedClient, label: string) => {
    const created = await client.send(`${label} (its endpoint)`, operationName('v2', 'createWebhookEndpoint'), true, {
      method: 'POST',
      path: endpoints,
      headers: json,
      body: NEW_ENDPOINT,
    });
    return (JSON.parse(created.bodyText) as { id: string }).id;
  };
  const remove = (client: CheckedClient, label: string, id: string) =>
    client.send(`${label} (its endpoint deleted)`, operationName('v2', 'deleteWebhookEndpoint'), true, {
      method: 'DELETE',
      path: `${endpoints}/${id}`,
      headers: auth,
    });
  /** `sent` of the endpoint the case registers, which is deleted after. */
  const onEndpoint = (label: string, status: number, sent: (id: string) => Sent) =>
    add(label, status, undefined, true, async (client, fullLabel, operationId) => {
      const id = await create(client, fullLabel);
      const answer = await client.send(fullLabel, operationId, true, sent(id));
      if (status !== 204) await remove(client, fullLabel, id);
      return answer;
    });
  const body = (method: string, path: string, text: string, headers = json): Sent => ({ method, path, headers, body: text });

  add('createWebhookEndpoint 201', 201, undefined, true, async (client, label, operationId) => {
    const answer = await client.send(label, operationId, true, body('POST', endpoints, NEW_ENDPOINT));
    await remove(client, label, (JSON.parse(answer.bodyText) as { id: string }).id);
    return answer;
  });
  simple('createWebhookEndpoint 400 url', 400, 'invalid_webhook_url', true, body('POST', endpoints, '{"url":"http://10.0.0.1/","events":["order.shipped"]}'));
  simple('createWebhookEndpoint 400 body', 400, 'invalid_request', true, body('POST', endpoints, '{"url":"https://hooks.example.com/"}'));
  simple('createWebhookEndpoint 413', 413, 'payload_too_large', true, body('POST', endpoints, 'x'.repeat(1_100_000)));
  simple('createWebhookEndpoint 415', 415, 'unsupported_content_encoding', true, body('POST', endpoints, NEW_ENDPOINT, { ...json, 'Content-Encoding': 'gzip' }));
  add('createWebhookEndpoint 409', 409, 'too_many_webhook_endpoints', true, async (client, label, operationId) => {
    const made: string[] = [];
    try {
      // Up to the account's most (10 by default), then one more.
      for (let more = true; more; ) {
        const answer = await client.send(`${label} (its endpoint)`, operationId, true, body('POST', endpoints, NEW_ENDPOINT));
        if (answer.status === 201) made.push((JSON.parse(answer.bodyText) as { id: string }).id);
        more = answer.status === 201;
      }
      return await client.send(label, operationId, true, body('POST', endpoints, NEW_ENDPOINT));
    } finally {
      for (const id of made) await remove(client, label, id);
    }
  });
  simple('listWebhookEndpoints 200', 200, undefined, true, { path: endpoints, headers: auth });
  simple('listWebhookEndpoints 400 limit', 400, 'limit_out_of_range', true, { path: `${endpoints}?limit=101`, headers: auth });
  simple('listWebhookEndpoints 400 cursor', 400, 'invalid_cursor', true, { path: `${endpoints}?cursor=abc`, headers: auth });
  onEndpoint('getWebhookEndpoint 200', 200, (id) => ({ path: `${endpoints}/${id}`, headers: auth }));
  onEndpoint('updateWebhookEndpoint 200', 200, (id) => body('PATCH', `${endpoints}/${id}`, '{"description":"changed"}'));
  onEndpoint('deleteWebhookEndpoint 204', 204, (id) => ({ method: 'DELETE', path: `${endpoints}/${id}`, headers: auth }));
  onEndpoint('rotateWebhookEndpointSecret 200', 200, (id) => ({ method: 'POST', path: `${endpoints}/${id}/rotate-secret`, headers: auth }));
  onEndpoint('listWebhookDeliveries 200', 200, (id) => ({ path: `${endpoints}/${id}/deliveries`, headers: auth }));
  onEndpoint('replayWebhookEvents 202', 202, (id) => body('POST', `${endpoints}/${id}/replay`, '{"since":"2026-01-01T00:00:00Z"}'));
  const unknown = `${endpoints}/${UNKNOWN_ENDPOINT}`;
  const byOperation: [string, Sent][] = [
    ['getWebhookEndpoint', { path: unknown, headers: auth }],
    ['updateWebhookEndpoint', body('PATCH', unknown, '{"status":"disabled"}')],
    ['deleteWebhookEndpoint', { method: 'DELETE', path: unknown, headers: auth }],
    ['rotateWebhookEndpointSecret', { method: 'POST', path: `${unknown}/rotate-secret`, headers: auth }],
    ['listWebhookDeliveries', { path: `${unknown}/deliveries`, headers: auth }],
    ['replayWebhookEvents', body('POST', `${unknown}/replay`, '{"since":"2026-01-01T00:00:00Z"}')],
  ];
  for (const [operationId, sent] of byOperation) {
    simple(`${operationId} 404`, 404, 'webhook_endpoint_not_found', true, sent);
    simple(`${operationId} 400 id`, 400, 'invalid_request', true, { ...sent, path: sent.path.replace(UNKNOWN_ENDPOINT, 'we_short') });
  }
  simple('updateWebhookEndpoint 413', 413, 'payload_too_large', true, body('PATCH', unknown, 'x'.repeat(1_100_000)));
  simple('updateWebhookEndpoint 415', 415, 'unsupported_content_encoding', true, body('PATCH', unknown, '{}', { ...json, 'Content-Encoding': 'gzip' }));
  simple('replayWebhookEvents 413', 413, 'payload_too_large', true, body('POST', `${unknown}/replay`, 'x'.repeat(1_100_000)));
  simple('replayWebhookEvents 415', 415, 'unsupported_content_encoding', true, body('POST', `${unknown}/replay`, '{}', { ...json, 'Content-Encoding': 'gzip' }));
}

/** How the table names an operation: v1's by its operationId alone, as before v2; v2's as `v2 listOrders`. */
export function operationName(version: Version, operationId: string): OperationName {
  return version === 'v1' ? operationId : `${version} ${operationId}`;
}

/**
 * Another connection holds the write lock past the server's write wait: in each version, 10 messages get
 * 503, and a second request with the Idempotency-Key of one still waiting gets 409. `control` must be the
 * server's.
 */
export async function answersUnderWriteLock(
  client: CheckedClient,
  key: string,
  control: HandlerControl,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const version of ['v1', 'v2'] as const) answers.push(...(await underWriteLock(client, key, control, version)));
  return answers;
}

async function underWriteLock(client: CheckedClient, key: string, control: HandlerControl, version: Version) {
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const operationId = operationName(version, 'sendMessage');
  const message = (extra: Record<string, string> = {}): Sent => ({
    method: 'POST',
    path: `/${version}/messages`,
    headers: { ...headers, ...extra },
    body: '{"message":"x"}',
  });
  const idempotencyKey = `locked-${version}`;
  const holder = new Database(client.server.dbPath);
  holder.exec('BEGIN IMMEDIATE');
  try {
    const entered = new Promise<void>((resolve) => {
      control.entered = () => resolve();
    });
    const waiting = client.send(`${operationId} 503 lock (idempotent)`, operationId, true, message({ 'Idempotency-Key': idempotencyKey }));
    await entered;
    control.entered = undefined;
    const inFlight = await client.send(`${operationId} 409 in flight`, operationId, true, message({ 'Idempotency-Key': idempotencyKey }));
    const busy = await Promise.all(
      Array.from({ length: 10 }, () => client.send(`${operationId} 503 lock`, operationId, true, message())),
    );
    return [await waiting, inFlight, ...busy];
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
}

/** What `answersUnderWriteLock` must answer, by label. */
export const UNDER_WRITE_LOCK: Record<string, { status: number; code: string }> = Object.fromEntries(
  ['v1', 'v2'].flatMap((version) => {
    const operationId = operationName(version as Version, 'sendMessage');
    return [
      [`${operationId} 503 lock (idempotent)`, { status: 503, code: 'service_unavailable' }],
      [`${operationId} 409 in flight`, { status: 409, code: 'idempotency_key_in_use' }],
      [`${operationId} 503 lock`, { status: 503, code: 'service_unavailable' }],
    ];
  }),
);

/** Every (operation, status) pair the contracts document; `default` stands for each 5xx of the Error table. */
export function documentedAnswers(): { operationId: OperationName; status: number }[] {
  const statuses = errorCodeTable().map(({ status }) => status);
  const serverErrors = [...new Set(statuses.filter((status) => status >= 500))];
  const pairs: { operationId: OperationName; status: number }[] = [];
  for (const [version, document] of Object.entries(documents) as [Version, Json][]) {
    for (const item of Object.values(document.paths as Json)) {
      for (const operation of Object.values(item as Json)) {
        const { operationId: id, responses } = operation as { operationId?: string; responses?: Json };
        if (!id || !responses) continue;
        const operationId = operationName(version, id);
        for (const status of Object.keys(responses)) {
          if (status === 'default') for (const code of serverErrors) pairs.push({ operationId, status: code });
          else pairs.push({ operationId, status: Number(status) });
        }
      }
    }
  }
  return pairs;
}

/** The rows of the code tables in the Error schema's description of both contracts, each code once. */
export function errorCodeTable(): { code: string; status: number }[] {
  const rows = new Map<string, number>();
  for (const document of Object.values(documents)) {
    const { schemas } = document.components as { schemas: Record<string, { description: string }> };
    const { description } = schemas.Error as { description: string };
    for (const row of description.matchAll(/^\| `([a-z_]+)` \| ([0-9]{3}) \|/gm)) rows.set(row[1] as string, Number(row[2]));
  }
  return [...rows].map(([code, status]) => ({ code, status }));
}

/** The documented (operation, status) pairs none of `answers` shows, as `operation status` lines. */
export function uncoveredAnswers(
  answers: readonly Pick<Answer, 'operationId' | 'status'>[],
  leaveOut: (pair: { operationId: OperationName; status: number }) => boolean = () => false,
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
