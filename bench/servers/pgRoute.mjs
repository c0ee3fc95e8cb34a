// The contract-free server on PostgreSQL: bare Fastify and a pg pool of the project's default size, one
// plain statement per operation, and the cheapest honest key check (the digests read once at start, compared
// in memory): what a Fastify server on PostgreSQL can do without a contract.
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { digestChecker } from './keyCheck.mjs';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const { rows: keys } = await pool.query('SELECT digest FROM api_keys WHERE revoked_at IS NULL');
const checkKey = digestChecker(keys.map(({ digest }) => digest));
const { rows: accounts } = await pool.query('SELECT id FROM accounts ORDER BY id LIMIT 1');
const accountId = accounts[0].id;
const app = Fastify({ logger: false });

app.addHook('onRequest', async (request, reply) => {
  if (!checkKey(request.headers.authorization))
    reply.code(401).send({ code: 'unauthorized', message: 'A valid API key is required', status: 401 });
});
app.get('/v1/store/orders', async () => {
  const { rows } = await pool.query(
    `SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    petId: r.pet_id,
    quantity: r.quantity,
    shipDate: r.ship_date,
    complete: r.complete,
  }));
});
app.delete('/v1/store/orders/:orderId', async (request, reply) => {
  const orderId = Number(request.params.orderId);
  const cancelled = await pool.query(
    `UPDATE orders SET status = 'cancelled', updated_at = $1 WHERE id = $2 AND status = 'pending' RETURNING id`,
    [new Date().toISOString(), orderId],
  );
  if (cancelled.rowCount === 1) return reply.code(204).send();
  const { rows } = await pool.query('SELECT status FROM orders WHERE id = $1', [orderId]);
  const status = rows[0]?.status === 'shipped' ? 409 : 404;
  return reply.code(status).send({ code: 'x', message: 'x', status });
});
app.post('/v1/messages', async (request, reply) => {
  const id = `msg_${randomBytes(16).toString('base64url').slice(0, 22)}`;
  const createdAt = new Date().toISOString();
  await pool.query(
    `INSERT INTO messages (id, account_id, body, status, created_at) VALUES ($1, $2, $3, 'queued', $4)`,
    [id, accountId, request.body.message, createdAt],
  );
  return reply.code(202).send({ id, message: request.body.message, status: 'queued', createdAt });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('listening');
