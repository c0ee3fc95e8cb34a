// A webhook receiver on a loopback port, as an operator's endpoint would be: it verifies every delivery with
// the Standard Webhooks package (standardwebhooks' Webhook.verify) and records it; the test decides how it
// answers each one (a status, a dropped connection, silence).
import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** The body every delivery POSTs: the Message as sendMessage answered it, with its account's name. */
export interface DeliveredMessage {
  id: string;
  message: string;
  status: 'queued';
  createdAt: string;
  account: string;
}

export interface Delivery {
  /** The `webhook-id`, which must be the message's id. */
  webhookId: string;
  timestamp: string;
  signature: string;
  /** The attempt's W3C trace context, if the sender gave one. */
  traceparent: string | undefined;
  payload: DeliveredMessage;
  /** This delivery's number among those of the same message, from 1. */
  attempt: number;
  /** The body and the header fields as they arrived, for the tests that hold them against the contract. */
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * How the receiver answers a delivery: a status, at once or after `afterMs`; `drop` (the connection is
 * destroyed unanswered); or `silent`.
 */
export type Answer = number | { status: number; afterMs: number } | 'drop' | 'silent';

export interface Receiver {
  url: string;
  /** `whsec_` and the base64 of a new key. */
  secret: string;
  /** Every delivery that verified, in the order received. */
  deliveries: Delivery[];
  /** Deliveries whose signature did not verify, or whose id was not the payload's: must stay empty. */
  rejected: string[];
  /** Decides each answer; 204 unless set. */
  answer: (delivery: Delivery) => Answer;
  /** How many times each message id was received. */
  counts(): Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const webhook = new Webhook(secret);
  const counts = new Map<string, number>();
  const receiver = {
    secret,
    deliveries: [] as Delivery[],
    rejected: [] as string[],
    answer: (): Answer => 204,
    counts: () => counts,
  } as Omit<Receiver, 'url' | 'close'>;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => take(receiver, webhook, counts, request, response, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, { url: `http://127.0.0.1:${port}/hooks`, close: () => closeServer(server) });
}

function take(
  receiver: Omit<Receiver, 'url' | 'close'>,
  webhook: Webhook,
  counts: Map<string, number>,
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
): void {
  const headers = request.headers as Record<string, string>;
  let payload: DeliveredMessage;
  try {
    payload = webhook.verify(body, headers) as DeliveredMessage;
    if (payload.id !== headers['webhook-id']) throw new Error(`webhook-id ${headers['webhook-id']} for ${payload.id}`);
  } catch (error) {
    receiver.rejected.push(`${(error as Error).message}: ${body}`);
    response.writeHead(400).end();
    return;
  }
  const attempt = (counts.get(payload.id) ?? 0) + 1;
  counts.set(payload.id, attempt);
  const delivery = {
    webhookId: headers['webhook-id'],
    timestamp: headers['webhook-timestamp'] as string,
    signature: headers['webhook-signature'] as string,
    traceparent: headers.traceparent,
    payload,
    attempt,
    body,
    headers: request.headers,
  };
  receiver.deliveries.push(delivery);
  const answer = receiver.answer(delivery);
  if (answer === 'drop') request.socket.destroy();
  else if (typeof answer === 'number') response.writeHead(answer).end();
  else if (answer !== 'silent') setTimeout(() => response.writeHead(answer.status).end(), answer.afterMs);
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Resolves once `done` holds, looking every 20 ms; the test's own time-out is the hang guard. */
export async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}
