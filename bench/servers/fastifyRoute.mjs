// The hand-written Fastify route: listOrders with a body serialized once at start and sent as bytes, after
// the same in-memory key check as the limit. What a Fastify server can do without a contract.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { activeDigests, digestChecker, openBaselineDatabase, serializedOrderList } from './keyCheck.mjs';

const db = openBaselineDatabase(Database, process.env.DATABASE_URL, 'FULL');
const checkKey = digestChecker(activeDigests(db));
const body = serializedOrderList(db);
const app = Fastify({ logger: false });
app.get('/v1/store/orders', (request, reply) => {
  if (!checkKey(request.headers.authorization)) return reply.code(401).send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening');
