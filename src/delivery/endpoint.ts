// One attempt: the signed POST of a message to the operator's endpoint, or of an event to a client's, over
// kept-alive connections. A 2xx delivers it. A redirect is an answer like any other that is not 2xx:
// node:http follows none, so a delivery never goes anywhere but the URL it was sent to. The answer's body is
// read up to a few kilobytes and discarded (a longer one closes its connection), so a receiver cannot make
// a server hold much of anything; the time-out covers connecting, the answer's status and that read.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FinishedSpan, SpanAttributes } from '../spans.js';
import type { TraceContext } from '../traceContext.js';
import { VERSION } from '../version.js';
import type { AttemptResult } from './retryPolicy.js';
import type { Endpoint } from './settings.js';
import { signedHeaders } from './signature.js';

/** What an attempt came to, as the metrics count it: bounded, and naming nothing of the receiver's. */
export const ATTEMPT_OUTCOMES = ['delivered', 'http_error', 'timeout', 'connection_error'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** What came of an attempt: the endpoint's status when it answered, and the wait its `Retry-After` asked. */
export type Attempt = AttemptResult & { outcome: AttemptOutcome; status?: number; retryAfterMs?: number };

/** Read of an answer's body at most: enough for a receiver's short error text, which is discarded anyway. */
export const ANSWER_BYTES_READ = 4 * 1024;

const USER_AGENT = `store-orders/${VERSION}`;

/**
 * A kept-alive connection idle this long is closed: well before a receiver closes it itself (Node's servers
 * after 5 s, most others later), since an attempt sent on a connection the receiver is closing fails as if
 * the receiver had dropped it, and would be tried again later, out of its account's order.
 */
const IDLE_CONNECTION_MS = 1_000;

/** Sends signed POSTs to any URL, each attempt bounded by the time-out, over kept-alive connections. */
export class WebhookSender {
  readonly #timeoutMs: number;
  readonly #agents: { http: http.Agent; https: https.Agent };

  /**
   * `connections`: attempts in flight at once to one host, each on a connection of its own. `lookup`, when
   * given, resolves every name the attempts connect to (delivery/addresses.ts refuses addresses with it).
   */
  constructor(timeoutMs: number, connections: number, lookup?: LookupFunction) {
    this.#timeoutMs = timeoutMs;
    const options = { keepAlive: true, maxSockets: connections, timeout: IDLE_CONNECTION_MS, ...(lookup && { lookup }) };
    this.#agents = { http: new http.Agent(options), https: new https.Agent(options) };
  }

  /**
   * POSTs `body` to `url` as `id`, signed at `at` with each key, with the attempt's `traceparent` if given;
   * settles with what came of it, never rejects.
   */
  post(url: URL, keys: readonly Buffer[], id: string, body: string, at: Date, traceparent?: string): Promise<Attempt> {
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
        ...signedHeaders(keys, id, at, body),
        ...(traceparent !== undefined && { traceparent }),
      };
      const secure = url.protocol === 'https:';
      const send = secure ? https.request : http.request;
      const agent = secure ? this.#agents.https : this.#agents.http;
      const request = send(url, { method: 'POST', agent, headers }, (response) => {
        answered = attemptOf(response.statusCode ?? 0, response.headers['retry-after'], at);
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
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }
}

/** The operator's one endpoint (MESSAGE_WEBHOOK_URL), signed with its one secret. */
export class EndpointClient {
  readonly #url: URL;
  readonly #keys: readonly Buffer[];
  readonly #sender: WebhookSender;

  /** `connections`: how many attempts may be in flight at once, each on a connection of its own. */
  constructor({ url, key }: Endpoint, timeoutMs: number, connections: number) {
    this.#url = url;
    this.#keys = [key];
    this.#sender = new WebhookSender(timeoutMs, connections);
  }

  /**
   * POSTs `body` as the message `id`, signed at `at`, in the attempt's trace; settles with what came of it,
   * never rejects.
   */
  post(id: string, body: string, at: Date, traceparent: string): Promise<Attempt> {
    return this.#sender.post(this.#url, this.#keys, id, body, at, traceparent);
  }

  get url(): URL {
    return this.#url;
  }

  close(): void {
    this.#sender.close();
  }
}

function attemptOf(status: number, retryAfter: string | undefined, at: Date): Attempt {
  if (status >= 200 && status < 300) return { delivered: true, outcome: 'delivered', status };
  const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  const waitMs = retryAfter === undefined ? undefined : retryAfterMs(retryAfter, at);
  return {
    delivered: false,
    outcome: 'http_error',
    reason: `the endpoint answered HTTP ${status}${redirect}`,
    status,
    ...(waitMs !== undefined && { retryAfterMs: waitMs }),
  };
}

/** `Retry-After` (RFC 9110 §10.2.3) as a wait from `at`: seconds, or an HTTP date; undefined if neither. */
export function retryAfterMs(value: string, at: Date): number | undefined {
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - at.getTime());
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

/**
 * An attempt to `url` as an HTTP client span of `context` (OpenTelemetry's conventions), begun at `start`:
 * the endpoint's host and port, never its path or query, which may hold a token; `own`, the attempt's ids.
 */
export function attemptSpan(context: TraceContext, start: number, end: number, url: URL, attempt: Attempt, own: SpanAttributes): FinishedSpan {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return {
    name: 'POST',
    kind: 'client',
    context,
    start,
    end,
    attributes: {
      'http.request.method': 'POST',
      'server.address': url.hostname,
      'server.port': port,
      'http.response.status_code': attempt.status,
      'error.type': attempt.outcome === 'delivered' ? undefined : attempt.outcome,
      ...own,
    },
    failed: attempt.outcome !== 'delivered',
  };
}
