// The hand-written Fastify route with, written by hand the cheapest way, every feature the project keeps on
// for listOrders: what a server with those features can reach without a contract, so the price of the
// features is told apart from the price of the project's own design. Per request:
// - an X-Request-Id (the caller's when it is safe to echo, else a new UUID) and `Cache-Control: no-store`;
// - one pass over the raw header fields: exactly one Host, no transfer coding but chunked, one Authorization;
// - the address's failed-authentication quota looked at, and counted on a failure;
// - the key's SHA-256 digest looked up in a cache that is dropped whenever `PRAGMA data_version`, read once
//   per event-loop turn, says another connection committed (so a revocation counts from the next request);
//   its expiry compared with the clock;
// - the key's quota counted, with its RateLimit fields, then its scopes (orders:read);
// - the ETag, and 304 to an If-None-Match that names it;
// - a duration histogram per status, and the connection limiter's count of requests in flight.
import { timingSafeEqual } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { entityTag, matchesIfNoneMatch } from '../../dist/http/conditional.js';
import { keyDigest } from '../../dist/keys.js';
import { bearerToken } from '../../dist/serving/bearerToken.js';
import { requestIdFor } from '../../dist/serving/requestId.js';
import { openBaselineDatabase, serializedOrderList } from './keyCheck.mjs';

// The project's defaults; the bench sets the key's quota out of reach, as it does the project's.
const LIMIT = Number(process.env.RATE_LIMIT_REQUESTS ?? 1_000);
const FAILURES_PER_ADDRESS = Number(process.env.RATE_LIMIT_AUTH_FAILURES ?? 20);
const WINDOW_MS = 1000 * Number(process.env.RATE_LIMIT_WINDOW_SECONDS ?? 60);
const POLICY = `"per-key";q=${LIMIT};w=${WINDOW_MS / 1000}`;
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Bounded, as the project's key cache and quota tables are: made-up keys or addresses must not grow memory.
const MAX_TRACKED = 10_000;

const db = openBaselineDatabase(Database, process.env.DATABASE_URL, 'FULL');
const body = serializedOrderList(db);
const etag = entityTag(body);

const dataVersion = db.prepare('PRAGMA data_version').pluck();
const activeKey = db.prepare('SELECT id, digest, scopes, expires_at FROM api_keys WHERE digest = ? AND revoked_at IS NULL');
let stamp;
let cachedAt;
const keys = new Map();
function findKey(digest) {
  if (stamp === undefined) {
    stamp = dataVersion.get();
    setImmediate(() => {
      stamp = undefined;
    });
  }
  if (stamp !== cachedAt) {
    keys.clear();
    cachedAt = stamp;
  }
  // One character per byte, as the project keys its maps: the cheapest text of a digest.
  const text = digest.toString('latin1');
  let key = keys.get(text);
  if (key === undefined) {
    const row = activeKey.get(digest);
    key =
      row && timingSafeEqual(row.digest, digest)
        ? { id: row.id, expiresAt: row.expires_at, mayList: row.scopes === null || row.scopes.split(' ').includes('orders:read') }
        : null;
    if (keys.size >= MAX_TRACKED) keys.clear();
    keys.set(text, key);
  }
  // An expiry is a time, compared at every request, as the project does.
  if (key === null || (key.expiresAt !== null && key.expiresAt <= new Date().toISOString())) return null;
  return key;
}

let window = -1;
let perKey = new Map();
let failures = new Map();
function countWindow(nowMs) {
  const current = Math.floor(nowMs / WINDOW_MS);
  if (current === window) return;
  window = current;
  perKey = new Map();
  failures = new Map();
}

/** The fields that frame the request or name its caller, in one pass; undefined when one is refused. */
function authorizationOf(rawHeaders) {
  let hosts = 0;
  let authorizations = 0;
  let authorization;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (name === 'host') hosts++;
    else if (name === 'authorization') {
      authorizations++;
      authorization = rawHeaders[i + 1];
    } else if (name === 'transfer-encoding' && rawHeaders[i + 1].trim().toLowerCase() !== 'chunked') return undefined;
  }
  return hosts === 1 && authorizations === 1 ? authorization : undefined;
}

const histograms = new Map();
function observe(status, seconds) {
  let counts = histograms.get(status);
  if (counts === undefined) histograms.set(status, (counts = new Array(BUCKETS.length + 1).fill(0)));
  let bucket = 0;
  while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]) bucket++;
  counts[bucket]++;
}

const app = Fastify({ logger: false });

// Kept on the socket, as the project keeps it: cheaper than a Map's updates.
const IN_FLIGHT = Symbol('requests in flight');
function answered() {
  this.req.socket[IN_FLIGHT] -= 1;
}
app.server.on('connection', (socket) => {
  socket[IN_FLIGHT] = 0;
});
app.server.on('request', ({ socket }, response) => {
  socket[IN_FLIGHT] += 1;
  response.on('close', answered);
});

app.addHook('onResponse', (_request, reply, done) => {
  observe(reply.statusCode, reply.elapsedTime / 1000);
  done();
});

app.get('/v1/store/orders', (request, reply) => {
  reply.header('x-request-id', requestIdFor(request.headers['x-request-id'])).header('cache-control', 'no-store');
  const nowMs = Date.now();
  countWindow(nowMs);
  if ((failures.get(request.ip) ?? 0) >= FAILURES_PER_ADDRESS) return reply.code(429).send();
  const token = bearerToken(authorizationOf(request.raw.rawHeaders));
  const key = token === undefined ? null : findKey(keyDigest(token));
  if (key === null) {
    const failed = (failures.get(request.ip) ?? 0) + 1;
    if (failed > 1 || failures.size < MAX_TRACKED) failures.set(request.ip, failed);
    return reply.code(401).send();
  }
  const used = (perKey.get(key.id) ?? 0) + 1;
  perKey.set(key.id, used);
  const resetSeconds = Math.max(1, Math.ceil((WINDOW_MS - (nowMs % WINDOW_MS)) / 1000));
  reply
    .header('ratelimit-policy', POLICY)
    .header('ratelimit', `"per-key";r=${Math.max(0, LIMIT - used)};t=${resetSeconds}`);
  if (used > LIMIT) return reply.code(429).send();
  if (!key.mayList) return reply.code(403).send();
  reply.header('etag', etag);
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening');
