// How long one page of API v2's listOrders holds the event loop at worst (issue 24): pages whose filters
// match none of 1,000,000 orders, so that each examines as many orders as a page may. Two measures:
// - the store's own page calls, made in this process, three walks of every page: the CPU time of each
//   call, which runs synchronously on the event loop (SQLite), is how long it holds the loop when the
//   process has a core to itself; the most of them is the figure, and other work on the machine barely
//   moves it, where it stretches wall times at will;
// - the server over HTTP: four clients walk such pages (following nextCursor, from the start again at the
//   end) while a fifth calls /healthz one request after another; the server's CPU time per page, the
//   longest delay of its event loop (prom-client's monitor, on /metrics) and /healthz's latency, which on
//   a loaded machine include the time the server waited for a core.
// Usage: npm run build && node bench/pageWork.mjs. PAGE_WORK_ORDERS (1,000,000) and PAGE_WORK_SECONDS (10 per
// filter) change the run; test/scripts/pageWork.test.ts runs it small, to keep it working, not to time it.
// The orders: every 100th shipped and every 100th cancelled (1% each, spread through the ids, so that each
// one examined of those statuses lies on a table page of its own), every 50th of pet 1, complete on every
// other one, all shipping on 2026-12-01.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { displayPrefix, generateKey, keyDigest } from '../dist/keys.js';
import { openStore } from '../dist/store/open.js';
import { ALL_SCOPES } from '../dist/store/store.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ORDERS = Number(process.env.PAGE_WORK_ORDERS ?? 1_000_000);
const SECONDS = Number(process.env.PAGE_WORK_SECONDS ?? 10);
const WALKERS = 4;

const EVERY = ['pending', 'shipped', 'cancelled'];
const FROM_2030 = '2030-01-01T00:00:00.000Z';
/** Filters that match no order, each making its pages examine all they may, in different ways. */
const FILTERS = [
  ['every status, complete=true, shipDateFrom 2030', { statuses: EVERY, complete: true, shipDateFrom: FROM_2030 }],
  ['status=shipped (1%), shipDateFrom 2030', { statuses: ['shipped'], shipDateFrom: FROM_2030 }],
  ['status=cancelled (1%), complete=true, shipDateBefore 2000', { statuses: ['cancelled'], complete: true, shipDateBefore: '2000-01-01T00:00:00.000Z' }],
  ['petId=1 (2%), every status, shipDateFrom 2030', { statuses: EVERY, petId: 1, shipDateFrom: FROM_2030 }],
].map(([name, filter]) => [name, filter, queryOf(filter)]);

/** The filter as v2's query string. */
function queryOf({ statuses, ...rest }) {
  const query = new URLSearchParams(statuses.map((status) => ['status', status]));
  for (const [name, value] of Object.entries(rest)) query.append(name, String(value));
  return query.toString();
}

async function seed(path) {
  const store = await openStore({ kind: 'sqlite', path }, { create: true });
  const key = generateKey();
  const account = await store.keys.createAccount('page-work');
  await store.keys.createKey({ accountId: account.id, digest: keyDigest(key), displayPrefix: displayPrefix(key), scopes: ALL_SCOPES });
  await store.close();
  // One statement: far faster than importing through the store, with the same schema and indexes.
  const db = new Database(path);
  db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO orders (pet_id, quantity, ship_date, complete, status, created_at, updated_at)
    SELECT CASE WHEN i % 50 = 0 THEN 1 ELSE 2 + i % 499 END, 1 + i % 9, '2026-12-01T09:00:00.000Z', i % 2,
      CASE i % 100 WHEN 7 THEN 'shipped' WHEN 13 THEN 'cancelled' ELSE 'pending' END,
      '2026-11-25T00:00:00.000Z', '2026-11-25T00:00:00.000Z'
    FROM n`).run(ORDERS);
  db.exec('ANALYZE');
  db.close();
  return key;
}

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(path) {
  const port = await freePort();
  const child = spawn(process.execPath, [`${root}dist/main.js`], {
    env: { ...process.env, DATABASE_URL: path, PORT: String(port), RATE_LIMIT_REQUESTS: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return { child, baseUrl };
    } catch {
      if (tries > 300) throw new Error('the server did not answer within 30 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The longest delay of the server's event loop since the last scrape (prom-client's monitor), in ms. */
async function lagMaxMs(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1]) * 1000;
}

/**
 * The store's own pages, called in this process: the CPU time of each call's synchronous part, which is how
 * long it holds the event loop when the process has a core to itself, whatever else loads the machine.
 * Three walks of every page; the most and the mean per page.
 */
async function storeCalls(path, filter) {
  const store = await openStore({ kind: 'sqlite', path });
  const cpu = [];
  try {
    for (let walk = 0; walk < 3; walk++) {
      let afterId = 0;
      for (;;) {
        const started = process.cpuUsage();
        const answer = store.orders.listOrderPage({ filter, afterId, limit: 1_000 });
        const { user, system } = process.cpuUsage(started);
        cpu.push((user + system) / 1000);
        const page = await answer;
        // Before issue 24 the store said hasMore, and the next page started after its last order.
        const next = 'nextAfterId' in page ? page.nextAfterId : page.hasMore ? page.orders.at(-1).id : undefined;
        if (next === undefined) break;
        afterId = next;
      }
    }
  } finally {
    await store.close();
  }
  return { most: Math.max(...cpu), mean: cpu.reduce((sum, ms) => sum + ms, 0) / cpu.length, pages: cpu.length / 3 };
}

/** The CPU time the server's process has used so far, in ms (Linux; undefined elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function walk(baseUrl, key, query, until, counts) {
  const headers = { Authorization: `Bearer ${key}` };
  let cursor;
  while (performance.now() < until) {
    const url = `${baseUrl}/v2/store/orders?${query}&limit=1000${cursor === undefined ? '' : `&cursor=${cursor}`}`;
    const response = await fetch(url, { headers });
    const page = await response.json();
    if (response.status !== 200 || page.data.length !== 0) throw new Error(`${url}: ${response.status} ${JSON.stringify(page).slice(0, 200)}`);
    counts.pages += 1;
    cursor = page.hasMore ? page.nextCursor : undefined;
    if (!page.hasMore) counts.walks += 1;
  }
}

async function probeHealth(baseUrl, until) {
  const latencies = [];
  while (performance.now() < until) {
    const started = performance.now();
    await (await fetch(`${baseUrl}/healthz`)).text();
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

const folder = mkdtempSync(join(tmpdir(), 'store-orders-page-work-'));
const path = join(folder, 'store.db');
let server;
try {
  const key = await seed(path);
  server = await startServer(path);
  // The server loads its validators after its first answer: a pause of its own, once, not a page's.
  for (const [, , query] of FILTERS) {
    await fetch(`${server.baseUrl}/v2/store/orders?${query}`, { headers: { Authorization: `Bearer ${key}` } });
  }
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  console.log(
    `| Filters (matching none of ${ORDERS.toLocaleString('en')} orders), limit 1,000 | Store call CPU per page, most / mean (pages a walk) | ` +
      'Server CPU per page over HTTP | Event-loop delay, max | /healthz p50 / p99 / max |',
  );
  console.log('|---|---|---|---|---|');
  for (const [name, filter, query] of FILTERS) {
    const calls = await storeCalls(path, filter);
    await lagMaxMs(server.baseUrl);
    const cpuBefore = cpuMs(server.child.pid);
    const until = performance.now() + SECONDS * 1000;
    const counts = { pages: 0, walks: 0 };
    const [latencies] = await Promise.all([
      probeHealth(server.baseUrl, until),
      ...Array.from({ length: WALKERS }, () => walk(server.baseUrl, key, query, until, counts)),
    ]);
    const lag = await lagMaxMs(server.baseUrl);
    const cpu = cpuMs(server.child.pid) - cpuBefore;
    const at = (fraction) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))];
    console.log(
      `| ${name} | ${calls.most.toFixed(1)} / ${calls.mean.toFixed(1)} ms (${calls.pages}) | ` +
        `${Number.isNaN(cpu) ? '—' : `${(cpu / counts.pages).toFixed(1)} ms`} (${counts.pages} pages) | ` +
        `${lag.toFixed(0)} ms | ${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)} / ${at(1).toFixed(1)} ms |`,
    );
  }
} finally {
  if (server && server.child.exitCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
  }
  rmSync(folder, { recursive: true, force: true });
}
