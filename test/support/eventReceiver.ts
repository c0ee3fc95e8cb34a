// Webhook endpoints of the accounts' own, on one loopback server: each endpoint a path of its own, which
// records every delivery as it arrived (its header fields, its raw body, when) and answers as the test
// decides. The test verifies the signatures itself, with the endpoint's secrets, which it learns only once
// the endpoint is registered.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface EventDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body: the Standard Webhooks payload. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** `Date.now()` as it arrived. */
  receivedAt: number;
}

/** How an endpoint answers: a status, with header fields if any; 204 unless set. */
export type EventAnswer = number | { status: number; headers: Record<string, string> };

export interface EventEndpoint {
  url: string;
  deliveries: EventDelivery[];
  answer: (delivery: EventDelivery) => EventAnswer;
  /** The deliveries whose event is one of `ids`, in the order they arrived. */
  of(ids: readonly string[]): EventDelivery[];
}

export interface EventReceiver {
  /** A new endpoint: a path of its own on the receiver. */
  endpoint(): EventEndpoint;
  close(): Promise<void>;
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const endpoints = new Map<string, EventEndpoint>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const endpoint = endpoints.get(request.url ?? '');
      if (!endpoint) return response.writeHead(404).end();
      const delivery = { headers: request.headers, body, payload: JSON.parse(body) as EventDelivery['payload'], receivedAt: Date.now() };
      endpoint.deliveries.push(delivery);
      const answer = endpoint.answer(delivery);
      if (typeof answer === 'number') response.writeHead(answer).end();
      else response.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: () => {
      const path = `/e/${endpoints.size + 1}`;
      const deliveries: EventDelivery[] = [];
      const endpoint: EventEndpoint = {
        url: `http://127.0.0.1:${port}${path}`,
        deliveries,
        answer: () => 204,
        of: (ids) => deliveries.filter(({ headers }) => ids.includes(eventIdOf(headers))),
      };
      endpoints.set(path, endpoint);
      return endpoint;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export const eventIdOf = (headers: IncomingHttpHeaders): string => String(headers['webhook-id']);

/** Whether the delivery verifies under `secret`, as a receiver's Standard Webhooks library checks it. */
export function verifies({ body, headers }: EventDelivery, secret: string): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}
