// Events for clients end to end, on every backend: a real server process delivers each account's events to
// the endpoints it registered through v2, on a receiver on loopback (which the server is told it may reach,
// and over plain http), and the test verifies every signature with the Standard Webhooks package under the
// secrets the API answered. One server per backend; each test registers endpoints of an account of its own,
// and reads only the events of the orders and messages it made (every endpoint subscribed to order events
// receives every account's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/commandLine.js';
import { type EventDelivery, type EventEndpoint, type EventReceiver, startEventReceiver, verifies } from '../support/eventReceiver.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';
import { until } from '../support/receiver.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';

interface Registered {
  id: string;
  secret: string;
}

describe.each(STORE_BACKENDS)('events for clients on $kind', (backend) => {
  let database: ScratchDatabase;
  let receiver: EventReceiver;
  let operator: EventEndpoint;
  let server: ServerProcess;
  let accounts = 0;
  /** Every secret the API answered: none may appear in the server's output. */
  const secrets: string[] = [];
  const env = () => ({ DATABASE_URL: database.url });

  beforeAll(async () => {
    if (!backend.available) return;
    database = await scratchDatabase(backend.kind, 'store-orders-events-');
    receiver = await startEventReceiver();
    // The operator's endpoint takes every message but those that say "fail".
    operator = receiver.endpoint();
    operator.answer = ({ body }) => (body.includes('fail') ? 500 : 204);
    server = await spawnServer({
      ...env(),
      LOG_FORMAT: 'json',
      MESSAGE_WEBHOOK_URL: operator.url,
      MESSAGE_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      MESSAGE_DELIVERY_RETRY_MS: '50',
      MESSAGE_DELIVERY_MAX_RETRY_MS: '1500',
      MESSAGE_DELIVERY_ATTEMPTS: '3',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    });
  });

  afterAll(async () => {
    if (!backend.available) return;
    server.child.kill('SIGKILL');
    await server.finished;
    await receiver.close();
    await database.drop();
  });

  /** A key of a new account. */
  const newKey = async () => (await runCliInProcess(['keys', 'create', '--account', `account-${++accounts}`], env())).stdout.trim();

  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.baseUrl}/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
  };

  async function register(key: string, endpoint: EventEndpoint, events: string[]): Promise<Registered> {
    const created = await api(key, 'POST', '/webhook-endpoints', { url: endpoint.url, events });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    secrets.push((created.body as unknown as Registered).secret);
    return created.body as unknown as Registered;
  }

  /** A new pending order, through the operator's CLI. */
  const newOrder = async () =>
    (JSON.parse((await runCliInProcess(['orders', 'add', '--pet-id', '7', '--quantity', '1'], env())).stdout) as { id: number }).id;

  /** The deliveries about the order `id`. */
  const aboutOrder = (endpoint: EventEndpoint, id: number) => endpoint.deliveries.filter(({ payload }) => payload.data.id === id);

  const signedBy = (delivery: EventDelivery, secret: string) => {
    expect(verifies(delivery, secret), delivery.body).toBe(true);
    expect(delivery.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{22}$/);
  };

  it("delivers a cancel, a ship and a message's delivered and failed, each once, signed, with the data v2 answers", async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    const key = await newKey();
    const endpoint = receiver.endpoint();
    const registered = await register(key, endpoint, ['order.cancelled', 'order.shipped', 'message.delivered', 'message.failed']);
    const [cancelled, shipped] = [await newOrder(), await newOrder()];
    expect((await api(key, 'DELETE', `/store/orders/${cancelled}`)).status).toBe(204);
    expect((await runCliInProcess(['orders', 'ship', String(shipped)], env())).code).toBe(0);
    const ok = (await api(key, 'POST', '/messages', { message: 'hello' })).body?.id as string;
    const bad = (await api(key, 'POST', '/messages', { message: 'please fail' })).body?.id as string;
    const mine = (delivery: EventDelivery) =>
      [cancelled, shipped, ok, bad].includes(delivery.payload.data.id as never);
    await until(() => endpoint.deliveries.filter(mine).length >= 4);
    const received = endpoint.deliveries.filter(mine);
    for (const delivery of received) signedBy(delivery, registered.secret);
    // WEBHOOK_TRACE_CONTEXT is off by default: the operator's trace ids stay the operator's.
    for (const delivery of received) expect(delivery.headers.traceparent).toBeUndefined();
    expect(new Set(received.map(({ headers }) => headers['webhook-id'])).size).toBe(4);
    const byType = Object.fromEntries(received.map(({ payload }) => [payload.type, payload]));
    const listed = (await api(key, 'GET', '/store/orders?status=cancelled&status=shipped')).body?.data as { id: number }[];
    expect(byType['order.cancelled']?.data).toEqual(listed.find(({ id }) => id === cancelled));
    expect(byType['order.shipped']?.data).toEqual(listed.find(({ id }) => id === shipped));
    expect(byType['message.delivered']?.data).toEqual((await api(key, 'GET', `/messages/${ok}`)).body);
    expect(byType['message.failed']?.data).toEqual((await api(key, 'GET', `/messages/${bad}`)).body);
    expect(byType['order.cancelled']?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("sends an account's message events to its own endpoints only, and order events to every account's", async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    const [acme, globex] = [await newKey(), await newKey()];
    const [mine, theirs] = [receiver.endpoint(), receiver.endpoint()];
    await register(acme, mine, ['message.delivered', 'order.cancelled']);
    await register(globex, theirs, ['message.delivered', 'order.cancelled']);
    const sent = (await api(acme, 'POST', '/messages', { message: 'for acme only' })).body?.id as string;
    await until(() => mine.deliveries.some(({ payload }) => payload.data.id === sent));
    // An event after the message's: an endpoint that has it has passed the message's in its order.
    const order = await newOrder();
    await api(acme, 'DELETE', `/store/orders/${order}`);
    await until(() => aboutOrder(theirs, order).length === 1 && aboutOrder(mine, order).length === 1);
    expect(theirs.deliveries.some(({ payload }) => payload.data.id === sent)).toBe(false);
  });

  it('holds back an endpoint\'s next event until the one before is delivered, no sooner than its Retry-After, and lists the attempts', async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    const key = await newKey();
    const endpoint = receiver.endpoint();
    const registered = await register(key, endpoint, ['order.cancelled']);
    const [first, second] = [await newOrder(), await newOrder()];
    endpoint.answer = (delivery) =>
      delivery.payload.data.id === first && aboutOrder(endpoint, first).length === 1 ? { status: 503, headers: { 'Retry-After': '1' } } : 204;
    await api(key, 'DELETE', `/store/orders/${first}`);
    await api(key, 'DELETE', `/store/orders/${second}`);
    await until(() => aboutOrder(endpoint, second).length === 1);
    const mine = endpoint.deliveries.filter(({ payload }) => [first, second].includes(payload.data.id as number));
    expect(mine.map(({ payload }) => payload.data.id)).toEqual([first, first, second]);
    expect(mine[0]?.headers['webhook-id']).toBe(mine[1]?.headers['webhook-id']);
    // The wait the endpoint asked for, at the least: a lower bound holds however busy the machine is.
    expect((mine[1]?.receivedAt ?? 0) - (mine[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1000);
    await until(async () => ((await api(key, 'GET', `/webhook-endpoints/${registered.id}/deliveries`)).body?.data as unknown[]).length === 3);
    const attempts = (await api(key, 'GET', `/webhook-endpoints/${registered.id}/deliveries`)).body?.data as Record<string, unknown>[];
    expect(attempts.map(({ attempt, outcome, statusCode }) => [attempt, outcome, statusCode])).toEqual([
      [1, 'delivered', 204],
      [2, 'delivered', 204],
      [1, 'failed', 503],
    ]);
  });

  it('signs with both secrets after a rotation, each of which verifies', async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    const key = await newKey();
    const endpoint = receiver.endpoint();
    const registered = await register(key, endpoint, ['order.cancelled']);
    const rotated = (await api(key, 'POST', `/webhook-endpoints/${registered.id}/rotate-secret`)).body as { secret: string };
    secrets.push(rotated.secret);
    const order = await newOrder();
    await api(key, 'DELETE', `/store/orders/${order}`);
    await until(() => aboutOrder(endpoint, order).length === 1);
    const [delivery] = aboutOrder(endpoint, order) as [EventDelivery];
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    signedBy(delivery, registered.secret);
    signedBy(delivery, rotated.secret);
  });

  it('disables an endpoint that answers 410, sends it nothing more, and replays what it missed once enabled', async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    const key = await newKey();
    const endpoint = receiver.endpoint();
    const registered = await register(key, endpoint, ['order.cancelled']);
    const [gone, missed] = [await newOrder(), await newOrder()];
    endpoint.answer = () => 410;
    await api(key, 'DELETE', `/store/orders/${gone}`);
    await until(async () => (await api(key, 'GET', `/webhook-endpoints/${registered.id}`)).body?.status === 'disabled');
    expect((await api(key, 'GET', `/webhook-endpoints/${registered.id}`)).body?.disabledReason).toBe('gone');
    await api(key, 'DELETE', `/store/orders/${missed}`);
    endpoint.answer = () => 204;
    expect((await api(key, 'PATCH', `/webhook-endpoints/${registered.id}`, { status: 'enabled' })).body?.status).toBe('enabled');
    const replay = await api(key, 'POST', `/webhook-endpoints/${registered.id}/replay`, { since: '2000-01-01T00:00:00Z' });
    expect(replay.status).toBe(202);
    await until(() => aboutOrder(endpoint, missed).length === 1);
    const replayed = endpoint.deliveries.filter(({ payload }) => [gone, missed].includes(payload.data.id as number));
    // The 410'd one, then both again, in the order they happened.
    expect(replayed.map(({ payload }) => payload.data.id)).toEqual([gone, gone, missed]);
    expect(replayed[1]?.headers['webhook-id']).toBe(replayed[0]?.headers['webhook-id']);
  });

  it('gives an event up after the attempts allowed, and goes on with the next', async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    const key = await newKey();
    const endpoint = receiver.endpoint();
    await register(key, endpoint, ['order.cancelled']);
    const [failing, next] = [await newOrder(), await newOrder()];
    endpoint.answer = ({ payload }) => (payload.data.id === failing ? 500 : 204);
    await api(key, 'DELETE', `/store/orders/${failing}`);
    await api(key, 'DELETE', `/store/orders/${next}`);
    await until(() => aboutOrder(endpoint, next).length === 1);
    expect(aboutOrder(endpoint, failing)).toHaveLength(3);
  });

  // Last: after every delivery, failure and rotation above, logged at info with their warnings.
  it("never writes an endpoint's secret, nor its key, to its output", ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    expect(secrets.length).toBeGreaterThan(5);
    const output = `${server.output.stdout}${server.output.stderr}`;
    expect(output).toContain('webhook delivery failed');
    for (const secret of secrets) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(secret.slice('whsec_'.length));
      expect(output).not.toContain(Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex'));
    }
  });
});
