// The naive contract-free server: bare Fastify running the same SQL as the project on every request, with
// the same key check and pragmas (SYNCHRONOUS from the environment, FULL unless told otherwise).
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { keyChecker, openBaselineDatabase } from './keyCheck.mjs';

const db = openBaselineDatabase(Database, process.env.DATABASE_URL, process.env.SYNCHRONOUS ?? 'FULL');
const checkKey = keyChecker(db);
const list = db.prepare(
  `SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`,
);
const cancel = db.prepare(
  `UPDATE orders SET status = 'cancelled', updated_at = ? WHERE id = ? AND status = 'pending'`,
);
const status = db.prepare('SELECT status FROM orders WHERE id = ?');
const insert = db.prepare(
  `INSERT INTO messages (id, account_id, body, status, created_at) VALUES (?, ?, ?, 'queued', ?)`,
);
const app = Fastify({ logger: false });

app.addHook('onRequest', async (request, reply) => {
  request.principal = await checkKey(request.headers.authorization);
  if (!request.principal)
    reply.code(401).send({ code: 'unauthorized', message: 'A valid API key is required', status: 401 });
});
app.get('/v1/store/orders', () =>
  list
    .all()
    .map((r) => ({
      id: r.id,
      petId: r.pet_id,
      quantity: r.quantity,
      shipDate: r.ship_date,
      complete: r.complete === 1,
    })),
);
app.delete('/v1/store/orders/:orderId', (request, reply) => {
  const orderId = Number(request.params.orderId);
  const outcome = db
    .transaction(() =>
      cancel.run(new Date().toISOString(), orderId).changes === 1 ? 'cancelled' : status.get(orderId)?.status,
    )
    .immediate();
  if (outcome === 'cancelled') return reply.code(204).send();
  return reply.code(outcome === 'shipped' ? 409 : 404).send({ code: 'x', message: 'x', status: 404 });
});
app.post('/v1/messages', (request, reply) => {
  const id = `msg_${randomBytes(16).toString('base64url').slice(0, 22)}`;
  const createdAt = new Date().toISOString();
  db.transaction(() =>
    insert.run(id, request.principal.accountId, request.body.message, createdAt),
  ).immediate();
  return reply.code(202).send({ id, message: request.body.message, status: 'queued', createdAt });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening');
