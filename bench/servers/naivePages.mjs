// The contract-free pages of orders (API v2's listOrders done the common way): bare Fastify, the same key
// check as naive.mjs (looked up in SQLite on every request), page numbers in the query, and on every request
// `SELECT … WHERE status IN (…) ORDER BY id LIMIT ? OFFSET ?` with JSON.stringify of the page, in the
// project's shape ({data, hasMore, nextCursor}, here the next page's number, and a Link to it).
// It runs ANALYZE on its own copy of the file at start: with statistics SQLite reads the default statuses
// by id and a rare status from the status index; without them it would read the status index and sort
// every matching order on every page. Its indexes are the project's, since the file is the project's.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { keyChecker, openBaselineDatabase } from './keyCheck.mjs';

const STATUSES = ['pending', 'shipped', 'cancelled'];
const db = openBaselineDatabase(Database, process.env.DATABASE_URL, 'FULL');
db.exec('ANALYZE');
const checkKey = keyChecker(db);
/** One statement per set of statuses asked for, prepared once. */
const pages = new Map();
function pageStatement(statuses) {
  const key = statuses.join(',');
  if (!pages.has(key)) {
    const marks = statuses.map(() => '?').join(', ');
    const sql = `SELECT id, pet_id, quantity, ship_date, complete, status FROM orders
      WHERE status IN (${marks}) ORDER BY id LIMIT ? OFFSET ?`;
    pages.set(key, db.prepare(sql));
  }
  return pages.get(key);
}

const app = Fastify({ logger: false });
const refuse = (reply, status, code) => reply.code(status).send({ code, message: code, status });

app.addHook('onRequest', async (request, reply) => {
  request.principal = await checkKey(request.headers.authorization);
  if (!request.principal)
    reply.code(401).send({ code: 'unauthorized', message: 'A valid API key is required', status: 401 });
});
app.get('/v2/store/orders', (request, reply) => {
  const query = request.query;
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  const page = query.page === undefined ? 1 : Number(query.page);
  const asked = query.status === undefined ? ['pending', 'shipped'] : [query.status].flat();
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return refuse(reply, 400, 'limit_out_of_range');
  if (!Number.isInteger(page) || page < 1) return refuse(reply, 400, 'invalid_request');
  if (asked.some((status) => !STATUSES.includes(status))) return refuse(reply, 400, 'invalid_request');
  const statuses = STATUSES.filter((status) => asked.includes(status));
  const rows = pageStatement(statuses).all(...statuses, limit + 1, (page - 1) * limit);
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit).map((r) => {
    const order = { id: r.id };
    if (r.pet_id !== null) order.petId = r.pet_id;
    if (r.quantity !== null) order.quantity = r.quantity;
    if (r.ship_date !== null) order.shipDate = r.ship_date;
    if (r.complete !== null) order.complete = r.complete === 1;
    order.status = r.status;
    return order;
  });
  if (!hasMore) return { data, hasMore };
  const next = new URLSearchParams({ limit: String(limit), page: String(page + 1) });
  if (query.status !== undefined) for (const status of statuses) next.append('status', status);
  reply.header('link', `</v2/store/orders?${next}>; rel="next"`);
  return { data, hasMore, nextCursor: String(page + 1) };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening');
