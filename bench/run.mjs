// `npm run bench`: the project against its baselines, side by side in one run. Each scenario starts
// every contender on its own copy of the same database, then alternates their load runs over ROUNDS
// rounds and prints medians and ratios. BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) tune it;
// BENCH_ONLY=list,write,cold,big picks scenarios.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { seedDatabase } from './seed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'list,write,cold,big').split(','));
const CONNECTIONS = 50;

const ENTRIES = {
  project: `${root}dist/main.js`,
  naive: `${root}bench/servers/naive.mjs`,
  limit: `${root}bench/servers/limit.mjs`,
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A contender on its own copy of `dbPath`; resolves once `probe` answers 200 (by default an
 * authenticated listOrders, which is also what cold start measures).
 */
async function start(kind, dbPath, key, env = {}, probe = '/v1/store/orders') {
  const copy = `${dbPath}.${kind}.${Math.random().toString(36).slice(2)}`;
  copyFileSync(dbPath, copy);
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [ENTRIES[kind]], {
    env: {
      ...process.env,
      DATABASE_URL: copy,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The quota stays on, so its cost is measured, but one key at full speed must never reach it.
      RATE_LIMIT_REQUESTS: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const response = await fetch(`${url}${probe}`, { headers: { Authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      if (response.status === 200) break;
    } catch {
      // Not listening yet.
    }
    await sleep(5);
  }
  return { kind, url, child, coldStartMs: performance.now() - started, stop: () => child.kill('SIGKILL') };
}

function peakRssMiB(child) {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

async function load(url, key, { headers, ...options } = {}) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { Authorization: `Bearer ${key}`, ...headers },
    ...options,
  });
  if (result.errors > 0 || result.non2xx > 0) {
    console.warn(`  (${url}: ${result.errors} errors, ${result.non2xx} non-2xx)`);
  }
  return result.requests.average;
}

/** Alternates the contenders' load runs over the rounds, then stops them; returns median req/s each. */
async function compare(contenders, run) {
  const samples = new Map(contenders.map(({ kind }) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) samples.get(contender.kind).push(await run(contender));
  }
  contenders.forEach((contender) => contender.stop());
  return Object.fromEntries([...samples].map(([kind, values]) => [kind, median(values)]));
}

const table = [];
function report(row) {
  table.push(row);
  console.log(`| ${row.join(' | ')} |`);
}

async function listScenario(orderCount) {
  const { path, key } = seedDatabase(orderCount);
  const contenders = [
    await start('project', path, key),
    await start('naive', path, key),
    await start('limit', path, key),
  ];
  const rps = await compare(contenders, ({ url }) => load(`${url}/v1/store/orders`, key));
  report([
    `listOrders, ${orderCount.toLocaleString('en')} orders`,
    `${Math.round(rps.project)} req/s`,
    `naive ${Math.round(rps.naive)}, limit ${Math.round(rps.limit)}`,
    `${ratio(rps.project, rps.limit)} limit (≥ 0.6×), ${ratio(rps.project, rps.naive)} naive (≥ 4×)`,
  ]);
}

/** Each request cancels the contender's next pending order, so every contender does the same writes. */
const nextOrder = new Map();
function cancelRequests(kind) {
  const path = () => {
    nextOrder.set(kind, (nextOrder.get(kind) ?? 0) + 1);
    return `/v1/store/orders/${nextOrder.get(kind)}`;
  };
  return [{ method: 'DELETE', setupRequest: (request) => ({ ...request, path: path() }) }];
}

async function writeScenarios() {
  const { path, key } = seedDatabase(400_000);
  const cancel = await compare(
    [await start('project', path, key), await start('naive', path, key)],
    ({ kind, url }) => load(url, key, { requests: cancelRequests(kind) }),
  );
  report([
    'cancelOrder',
    `${Math.round(cancel.project)} req/s`,
    `bare Fastify (FULL) ${Math.round(cancel.naive)}`,
    `${ratio(cancel.project, cancel.naive)} (≥ 0.9×)`,
  ]);

  const send = await compare(
    [await start('project', path, key), await start('naive', path, key, { SYNCHRONOUS: 'NORMAL' })],
    ({ url }) =>
      load(`${url}/v1/messages`, key, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'Hello from the benchmark' }),
      }),
  );
  report([
    'sendMessage (project FULL)',
    `${Math.round(send.project)} req/s`,
    `bare Fastify (NORMAL) ${Math.round(send.naive)}`,
    `${ratio(send.project, send.naive)} (≥ 1.0×)`,
  ]);
}

async function coldStartScenario() {
  const { path, key } = seedDatabase(100);
  const times = { project: [], naive: [] };
  for (let round = 0; round < Math.max(ROUNDS, 5); round++) {
    for (const kind of round % 2 === 0 ? ['project', 'naive'] : ['naive', 'project']) {
      const contender = await start(kind, path, key);
      times[kind].push(contender.coldStartMs);
      contender.stop();
    }
  }
  const project = median(times.project);
  const naive = median(times.naive);
  report([
    'cold start to first 200',
    `${project.toFixed(0)} ms`,
    `bare Fastify ${naive.toFixed(0)} ms`,
    `${ratio(project, naive)} (≤ 1.5×)`,
  ]);
}

async function bigListScenario(orderCount) {
  const { path, key } = seedDatabase(orderCount);
  const sql = `SELECT id, pet_id AS petId, quantity, ship_date AS shipDate, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`;
  const cliStarted = performance.now();
  execFileSync('sqlite3', ['-json', path, sql], {
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const cliMs = performance.now() - cliStarted;

  // Ready on /healthz, so the list is read for the first time by the measured request.
  const server = await start('project', path, key, {}, '/healthz');
  const baselineRss = peakRssMiB(server.child);
  const readList = async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/v1/store/orders`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    let bytes = 0;
    for await (const chunk of response.body) bytes += chunk.length;
    return { ms: performance.now() - started, bytes };
  };
  // First the list alone, timed; then again while four clients keep asking for /healthz, each of whose
  // latencies counts, including the requests held up by the list.
  const { ms: httpMs, bytes } = await readList();
  let listing = true;
  const latencies = [];
  const smallClient = async () => {
    while (listing) {
      const sent = performance.now();
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      latencies.push(performance.now() - sent);
    }
  };
  const smallClients = Array.from({ length: 4 }, smallClient);
  await readList();
  listing = false;
  await Promise.all(smallClients);
  const p99 = [...latencies].sort((x, y) => x - y)[Math.floor(latencies.length * 0.99)];
  const rss = peakRssMiB(server.child);
  server.stop();
  report([
    `listOrders, ${orderCount.toLocaleString('en')} orders (${(bytes / 1e6).toFixed(0)} MB)`,
    `${httpMs.toFixed(0)} ms over HTTP`,
    `sqlite3 -json ${cliMs.toFixed(0)} ms; peak RSS ${rss.toFixed(0)} MiB (idle ${baselineRss.toFixed(0)})`,
    `${ratio(httpMs, cliMs)} sqlite3 (≤ 2×); small requests p99 ${p99.toFixed(0)} ms of ${latencies.length} (≤ 50)`,
  ]);
}

console.log(`${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, medians.\n`);
console.log('| Scenario | Project | Baselines | Ratio (target) |');
console.log('|---|---|---|---|');
if (ONLY.has('list')) {
  await listScenario(100);
  await listScenario(10_000);
}
if (ONLY.has('write')) await writeScenarios();
if (ONLY.has('cold')) await coldStartScenario();
if (ONLY.has('big')) for (const count of [10_000, 100_000, 1_000_000]) await bigListScenario(count);
