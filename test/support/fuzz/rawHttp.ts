// Sends a generated request exactly as generated: repeated header fields stay separate lines, bodies are
// raw bytes, and nothing is added but Host and Content-Length. fetch would merge repeats and refuse some
// of these requests before they leave.
import { Agent, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { ObservedResponse } from '../contract.js';
import type { FuzzRequest } from './requests.js';

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/**
 * When each pooled connection stops being safe to reuse. A server may close an idle connection at any time
 * (RFC 9112 §9.6) and says in `Keep-Alive: timeout=N` how long it waits. Node's Agent honours that only
 * through a timer, which runs late whenever the event loop is busy, and so does the server's own when it
 * runs in this process: a request written on an overdue connection is then reset unread
 * (`read ECONNRESET`). So the age is checked as each request leaves, from when the last one on the
 * connection was sent (the server's wait starts later), and only the first half of the announced wait is
 * used: the rest covers the time between this check and the server reading the request.
 */
const reusableUntil = new WeakMap<Socket, number>();

const KEEP_ALIVE_TIMEOUT = /(?:^|,)\s*timeout=(\d+)/i;

function staleFreeConnections(): Socket[] {
  const now = performance.now();
  return Object.values(agent.freeSockets)
    .flatMap((sockets): Socket[] => sockets ?? [])
    .filter((socket) => now >= (reusableUntil.get(socket) ?? 0));
}

/** Closes the pooled connections that are too old to reuse; the Agent forgets each once it has closed. */
async function retireStaleConnections(): Promise<void> {
  for (let stale = staleFreeConnections(); stale.length > 0; stale = staleFreeConnections()) {
    await Promise.all(
      stale.map((socket) => new Promise((closed) => socket.once('close', closed).destroy())),
    );
  }
}

export async function send(baseUrl: string, fuzzRequest: FuzzRequest): Promise<ObservedResponse> {
  await retireStaleConnections();
  const url = new URL(baseUrl);
  const sentAt = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      agent,
      host: url.hostname,
      port: url.port,
      method: fuzzRequest.method,
      path: fuzzRequest.path,
    });
    for (const [name, value] of Object.entries(fuzzRequest.headers)) outgoing.setHeader(name, value);
    if (fuzzRequest.body !== undefined) outgoing.setHeader('Content-Length', fuzzRequest.body.length);
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const seconds = Number(KEEP_ALIVE_TIMEOUT.exec(String(incoming.headers['keep-alive'] ?? ''))?.[1] ?? 0);
      reusableUntil.set(incoming.socket, sentAt + (seconds * 1000) / 2);
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) headers.append(name, one);
        }
        resolve({
          method: fuzzRequest.method,
          path: fuzzRequest.path.split('?')[0] as string,
          status: incoming.statusCode ?? 0,
          headers,
          bodyText: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    outgoing.end(fuzzRequest.body);
  });
}

export function closeConnections(): void {
  agent.destroy();
}
