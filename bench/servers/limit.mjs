// The ceiling: raw node:http answering listOrders with a body serialized once at start, after the
// cheapest honest key check (the token's SHA-256 digest against the known digest, in memory).
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import { activeDigests, digestChecker, openBaselineDatabase, serializedOrderList } from './keyCheck.mjs';

const db = openBaselineDatabase(Database, process.env.DATABASE_URL, 'FULL');
const checkKey = digestChecker(activeDigests(db));
const body = serializedOrderList(db);
createServer((request, response) => {
  if (!checkKey(request.headers.authorization)) {
    response.writeHead(401).end();
    return;
  }
  response
    .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
    .end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
