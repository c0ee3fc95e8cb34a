// One attempt: the signed POST of a message to the operator's endpoint, over kept-alive connections. A 2xx
// delivers it. A redirect is an answer like any other that is not 2xx: node:http follows none, so a
// delivery never goes anywhere but the URL the operator set. The answer's body is read up to a few
// kilobytes and discarded (a longer one closes its connection), so a receiver cannot make a server hold
// much of anything; the time-out covers connecting, the answer's status and that read.
import http from 'node:http';
import https from 'node:https';
import { VERSION } from '../version.js';
import type { AttemptResult } from './retryPolicy.js';
import type { Endpoint } from './settings.js';
import { signedHeaders } from './signature.js';

/** What an attempt came to, as the metrics count it: bounded, and naming nothing of the receiver's. */
export const ATTEMPT_OUTCOMES = ['delivered', 'http_error', 'timeout', 'connection_error'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export type Attempt = AttemptResult & { outcome: AttemptOutcome };

/** Read of an answer's body at most: enough for a receiver's short error text, which is discarded anyway. */
export const ANSWER_BYTES_READ = 4 * 1024;

const USER_AGENT = `store-orders/${VERSION}`;

/**
 * A kept-alive connection idle this long is closed: well before a receiver closes it itself (Node's servers
 * after 5 s, most others later), since an attempt sent on a connection the receiver is closing fails as if
 * the receiver had dropped it, and would be tried again later, out of its account's order.
 */
const IDLE_CONNECTION_MS = 1_000;

export class EndpointClient {
  readonly #url: URL;
  readonly #key: Buffer;
  readonly #timeoutMs: number;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;

  /** `connections`: how many attempts may be in flight at once, each on a connection of its own. */
  constructor({ url, key }: Endpoint, timeoutMs: number, connections: number) {
    this.#url = url;
    this.#key = key;
    this.#timeoutMs = timeoutMs;
    const secure = url.protocol === 'https:';
    this.#agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: connections, timeout: IDLE_CONNECTION_MS });
    this.#request = secure ? https.request : http.request;
  }

  /** POSTs `body` as the message `id`, signed at `at`; settles with what came of it, never rejects. */
  post(id: string, body: string, at: Date): Promise<Attempt> {
    return new Promise((resolve) => {
      let answered: Attempt | undefined;
      let done = false;
      const finish = (attempt: Attempt) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(attempt);
      };
      const headers = {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': USER_AGENT,
        ...signedHeaders([this.#key], id, at, body),
      };
      const request = this.#request(this.#url, { method: 'POST', agent: this.#agent, headers }, (response) => {
        answered = attemptOf(response.statusCode ?? 0);
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // The rest is not waited for: the connection goes, rather than be kept for another attempt.
          if (read > ANSWER_BYTES_READ) response.destroy();
        });
        response.on('end', () => finish(answered as Attempt));
        response.on('close', () => finish(answered as Attempt));
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish(answered ?? { delivered: false, outcome: 'timeout', reason: `no answer within ${this.#timeoutMs} ms` });
      }, this.#timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => finish(answered ?? failedConnection(error)));
      request.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

function attemptOf(status: number): Attempt {
  if (status >= 200 && status < 300) return { delivered: true, outcome: 'delivered' };
  const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  return { delivered: false, outcome: 'http_error', reason: `the endpoint answered HTTP ${status}${redirect}` };
}

/** Why no answer came, in a few words of our own: a driver's message may name more than the reason. */
function failedConnection(error: NodeJS.ErrnoException): Attempt {
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection closed before an answer',
    EPIPE: 'connection closed before an answer',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
  };
  const code = error.code ?? 'ERR_UNKNOWN';
  const reason = reasons[code] ?? (/CERT|TLS|SSL/.test(code) ? `TLS failed (${code})` : `request failed (${code})`);
  return { delivered: false, outcome: 'connection_error', reason };
}
