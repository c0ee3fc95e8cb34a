// Delivery end to end, on every backend: a real server process delivers to a real receiver over HTTP, which
// verifies every signature with the Standard Webhooks package. Healthy, every message arrives once, each
// account's in the order accepted; a receiver that fails gets the message again until it takes it, or until
// the attempts are spent and the message is failed, which GET /v2/messages/{id} and the CLI show, and which
// `messages retry` delivers once the receiver is back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/store/store.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';
import { type Receiver, startReceiver, until } from '../support/receiver.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';

describe.each(STORE_BACKENDS)('delivery on $kind', (backend) => {
  let database: ScratchDatabase;
  let receiver: Receiver;
  let server: ServerProcess | undefined;
  const env = () => ({ DATABASE_URL: database.url });

  async function start(extra: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
    server = await spawnServer({
      ...env(),
      LOG_FORMAT: 'json',
      MESSAGE_WEBHOOK_URL: receiver.url,
      MESSAGE_WEBHOOK_SECRET: receiver.secret,
      MESSAGE_DELIVERY_RETRY_MS: '50',
      MESSAGE_DELIVERY_MAX_RETRY_MS: '200',
      MESSAGE_DELIVERY_ATTEMPTS: '3',
      MESSAGE_WEBHOOK_TIMEOUT_MS: '5000',
      ...extra,
    });
    return server;
  }

  const newKey = async (account: string) =>
    (await runCliInProcess(['keys', 'create', '--account', account], env())).stdout.trim();

  async function send(key: string, message: string, version = 'v2'): Promise<{ id: string; createdAt: string }> {
    const response = await fetch(`${server?.baseUrl}/${version}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    expect(response.status).toBe(202);
    return (await response.json()) as { id: string; createdAt: string };
  }

  const read = (key: string, id: string) =>
    fetch(`${server?.baseUrl}/v2/messages/${id}`, { headers: { Authorization: `Bearer ${key}` } });
  const statusOf = async (key: string, id: string) => ((await (await read(key, id)).json()) as { status: string }).status;
  const listed = async (...args: string[]) =>
    JSON.parse((await runCliInProcess(['messages', 'list', ...args], env())).stdout) as StoredMessage[];

  beforeEach(async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    database = await scratchDatabase(backend.kind, 'store-orders-delivery-');
    receiver = await startReceiver();
  });

  afterEach(async () => {
    if (!backend.available) return;
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.finished;
    server = undefined;
    await receiver.close();
    await database.drop();
  });

  it('delivers every message once, signed, each account\'s in the order accepted, and reads it back delivered', async () => {
    await start();
    const accounts = ['acme', 'globex', 'initech'];
    const keys = await Promise.all(accounts.map(newKey));
    // Each account sends in turn, one message after another's 202; the accounts at once, on v1 and v2.
    const sent = await Promise.all(
      keys.map(async (key, i) => {
        const ids: string[] = [];
        for (let n = 0; n < 20; n++) ids.push((await send(key, `${accounts[i]} ${n}`, n % 2 ? 'v1' : 'v2')).id);
        return ids;
      }),
    );
    const everyId = sent.flat();
    await until(async () => (await listed('--status', 'delivered')).length === everyId.length);
    expect(receiver.rejected).toEqual([]);
    expect([...receiver.counts().values()].every((count) => count === 1)).toBe(true);
    expect(new Set(receiver.deliveries.map(({ webhookId }) => webhookId))).toEqual(new Set(everyId));
    for (const [i, account] of accounts.entries()) {
      const received = receiver.deliveries.filter(({ payload }) => payload.account === account);
      expect(received.map(({ payload }) => payload.id)).toEqual(sent[i]);
      expect(received.map(({ payload }) => payload.message)).toEqual(sent[i]?.map((_, n) => `${account} ${n}`));
    }
    const [key] = keys as [string];
    const [id] = sent[0] as [string];
    const answer = await read(key, id);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { status: string; createdAt: string; updatedAt: string };
    expect(body).toMatchObject({ id, message: 'acme 0', status: 'delivered' });
    expect(Date.parse(body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(body.createdAt));
    // Another account's key finds nothing of it, as for an id never used.
    const other = await read(keys[1] as string, id);
    expect({ status: other.status, body: await other.json() }).toEqual({
      status: 404,
      body: { code: 'message_not_found', message: `No message ${id}`, status: 404 },
    });
  });

  it('tries again after a 500 and a dropped connection, and delivers at the third attempt, with the same webhook-id', async () => {
    await start();
    receiver.answer = ({ attempt }) => (attempt === 1 ? 500 : attempt === 2 ? 'drop' : 204);
    const key = await newKey('acme');
    const { id } = await send(key, 'third time lucky');
    await until(async () => (await statusOf(key, id)) === 'delivered');
    expect(receiver.rejected).toEqual([]);
    expect(receiver.deliveries.map(({ webhookId, attempt }) => [webhookId, attempt])).toEqual([[id, 1], [id, 2], [id, 3]]);
    // Each attempt is signed at its own time (whole seconds, so attempts within one second sign alike).
    const stamps = receiver.deliveries.map(({ timestamp }) => Number(timestamp));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    const [stored] = await listed();
    expect(stored).toMatchObject({ id, status: 'delivered', attempts: 3, lastError: 'connection closed before an answer' });
    // One line per failed attempt, with the message id and the reason: never the message, nor the secret.
    const failures = logLines(server as ServerProcess).filter(({ msg }) => msg.startsWith('message delivery failed'));
    expect(failures.map(({ messageId, attempt, reason }) => ({ messageId, attempt, reason }))).toEqual([
      { messageId: id, attempt: 1, reason: 'the endpoint answered HTTP 500' },
      { messageId: id, attempt: 2, reason: 'connection closed before an answer' },
    ]);
    const output = `${server?.output.stdout}${server?.output.stderr}`;
    expect(output).not.toContain('third time lucky');
    expect(output).not.toContain(receiver.secret.slice('whsec_'.length));
  });

  it('sends each attempt as a span of the sending request’s trace, logged with it when it fails', async () => {
    await start();
    receiver.answer = ({ attempt }) => (attempt === 1 ? 500 : 204);
    const key = await newKey('acme');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(`${server?.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'X-Request-Id': 'traced-send',
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({ message: 'traced' }),
    });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    await until(async () => (await statusOf(key, id)) === 'delivered');
    const lines = logLines(server as ServerProcess);
    const requestSpan = lines.find(({ reqId, msg }) => reqId === 'traced-send' && msg === 'request completed')?.spanId;
    expect(requestSpan).toMatch(/^[0-9a-f]{16}$/);
    // Two attempts, each a span of its own in the request's trace, sampled as the client asked.
    const spans = receiver.deliveries.map(({ traceparent }) => /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent ?? ''));
    expect(spans.map((fields) => fields?.[1])).toEqual([traceId, traceId]);
    const attemptSpans = spans.map((fields) => fields?.[2]);
    expect(new Set([...attemptSpans, requestSpan, '00f067aa0ba902b7']).size).toBe(4);
    const [failure] = lines.filter(({ msg }) => msg.startsWith('message delivery failed'));
    expect(failure).toMatchObject({ messageId: id, traceId, spanId: attemptSpans[0] });
  });

  it('fails a message the receiver never takes after the attempts allowed, shows it failed, and delivers it once retried', async () => {
    await start();
    receiver.answer = () => 503;
    const key = await newKey('acme');
    const { id } = await send(key, 'not yet');
    await until(async () => (await statusOf(key, id)) === 'failed');
    expect(receiver.counts().get(id)).toBe(3);
    const failed = await listed('--status', 'failed');
    expect(failed).toEqual([
      expect.objectContaining({ id, status: 'failed', attempts: 3, lastError: 'the endpoint answered HTTP 503' }),
    ]);
    receiver.answer = () => 200;
    expect((await runCliInProcess(['messages', 'retry', id], env())).stdout).toBe(`Message ${id} is queued again.\n`);
    await until(async () => (await statusOf(key, id)) === 'delivered');
    expect(receiver.counts().get(id)).toBe(4);
    expect(await listed('--status', 'failed')).toEqual([]);
  });

  it('says once at start that delivery is off without MESSAGE_WEBHOOK_URL, and leaves the messages queued', async () => {
    await start({ MESSAGE_WEBHOOK_URL: '', MESSAGE_DELIVERY_RETRY_MS: '', MESSAGE_DELIVERY_MAX_RETRY_MS: '' });
    const key = await newKey('acme');
    const { id } = await send(key, 'stays');
    const off = logLines(server as ServerProcess).filter(({ msg }) => msg.startsWith('message delivery is off'));
    expect(off).toHaveLength(1);
    expect(await statusOf(key, id)).toBe('queued');
    // Long enough for a claim and an attempt, were there any.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.deliveries).toEqual([]);
    expect((await listed())[0]).toMatchObject({ id, status: 'queued', attempts: 0 });
  });

  it('names the endpoint in its start line without the URL\'s query, and puts the secret in no log line or metric', async () => {
    receiver.url = `${receiver.url}?token=query-t0ken`;
    await start({ LOG_LEVEL: 'trace' });
    const key = await newKey('acme');
    receiver.answer = () => 500;
    const { id } = await send(key, 'hello');
    await until(async () => (await statusOf(key, id)) === 'failed');
    const started = logLines(server as ServerProcess).find(({ msg }) => msg === 'messages are delivered to the endpoint');
    expect(started?.endpoint).toBe(receiver.url.replace(/\?.*/, ''));
    const metrics = await (await fetch(`${server?.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/store_orders_message_delivery_attempts_total\{outcome="http_error"\} 3/);
    expect(metrics).toMatch(/store_orders_messages\{state="failed"\} 1/);
    for (const text of [metrics, server?.output.stdout ?? '', server?.output.stderr ?? '']) {
      expect(text).not.toContain(receiver.secret.slice('whsec_'.length));
      expect(text).not.toContain('query-t0ken');
    }
  });
});

interface LogLine {
  msg: string;
  reqId?: string;
  traceId?: string;
  spanId?: string;
  messageId?: string;
  attempt?: number;
  reason?: string;
  endpoint?: string;
}

function logLines(server: ServerProcess): LogLine[] {
  return server.output.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}
