// Opt-in CORS (CORS_ORIGINS) for browser clients served from other origins. A preflight from a listed
// origin is answered 204 with what it may send (the Fetch standard's CORS protocol); every answer to a
// listed origin names that origin in Access-Control-Allow-Origin and exposes the headers a client reads.
// No credentials mode: a page sends the key in Authorization itself, never in a cookie. Any other origin,
// and any OPTIONS that is no preflight, is answered as without CORS: 405 with Allow on the API's paths.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AnswersFirst } from '../serving/commonAnswers.js';
import { closeIfStopping } from '../serving/stopping.js';

/** The methods of the contract's operations; GET, HEAD and POST are allowed by Fetch anyway. */
const ALLOW_METHODS = 'GET, POST, DELETE';
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id, traceparent, tracestate';
/** The response headers of the contract, and Allow; Fetch lets a page read Content-Type and a few others. */
const EXPOSE_HEADERS = [
  'ETag',
  'X-Request-Id',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'Link',
  'WWW-Authenticate',
  'Accept-Encoding',
  'Allow',
].join(', ');
/** Chromium keeps a preflight for 2 hours at most. */
const MAX_AGE_SECONDS = '7200';

const NO_PREFLIGHT: AnswersFirst = () => false;

/**
 * Adds the CORS fields to every answer. Returns what answers a preflight, for the listener to run before
 * any other check but its framing's (commonAnswers.ts); with no origins listed, it answers nothing.
 */
export function allowCors(app: FastifyInstance, origins: readonly string[]): AnswersFirst {
  if (origins.length === 0) return NO_PREFLIGHT;
  const listed = new Set(origins);
  const listedOrigin = (request: FastifyRequest) => {
    const { origin } = request.headers;
    return typeof origin === 'string' && listed.has(origin) ? origin : undefined;
  };

  app.addHook('onSend', (request, reply, payload, done) => {
    // Every answer depends on Origin now, also one to a request without it, as far as a cache can tell.
    reply.header('Vary', withOrigin(reply.getHeader('vary')));
    const origin = listedOrigin(request);
    if (origin !== undefined) {
      reply.header('Access-Control-Allow-Origin', origin).header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
    done(null, payload);
  });

  return (request, reply) => {
    const preflight =
      request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!preflight || listedOrigin(request) === undefined) return false;
    closeIfStopping(reply);
    reply
      .code(204)
      .headers({
        'Access-Control-Allow-Methods': ALLOW_METHODS,
        'Access-Control-Allow-Headers': ALLOW_HEADERS,
        'Access-Control-Max-Age': MAX_AGE_SECONDS,
      })
      .send();
    return true;
  };
}

function withOrigin(vary: string | number | string[] | undefined): string {
  const names = (Array.isArray(vary) ? vary.join(',') : String(vary ?? ''))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.some((name) => name.toLowerCase() === 'origin') ? names.join(', ') : [...names, 'Origin'].join(', ');
}
