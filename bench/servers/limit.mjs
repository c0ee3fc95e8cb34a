// The ceiling: raw node:http answering listOrders with a body serialized once at start, after the same
// key check as the project.
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { keyChecker, openBaselineDatabase } from './keyCheck.mjs';

const db = openBaselineDatabase(Database, process.env.DATABASE_URL, 'FULL');
const checkKey = keyChecker(db);
const rows = db
  .prepare(
    `SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`,
  )
  .all();
const body = Buffer.from(
  JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      petId: r.pet_id,
      quantity: r.quantity,
      shipDate: r.ship_date,
      complete: r.complete === 1,
    })),
  ),
);
createServer((request, response) => {
  if (!checkKey(request.headers.authorization)) {
    response.writeHead(401).end();
    return;
  }
  response
    .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
    .end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
