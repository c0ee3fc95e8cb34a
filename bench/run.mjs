// `npm run bench`: the project against its baselines, side by side in one run. Each scenario starts
// every contender on its own copy of the same database, then alternates their load runs over ROUNDS
// rounds and prints medians and ratios. BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) tune it;
// BENCH_ONLY=list,write,cold,big picks scenarios. BENCH_SMOKE=1 runs every scenario once on small data,
// one 1-second round at a low request rate, to prove the bench still works at little cost (the test suite
// runs it); its figures mean nothing.
// Any contender that exits, never answers its probe within BENCH_START_TIMEOUT_MS (default 30000), or
// answers a load run with an error ends the bench at once with exit status 1, its name and its stderr.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { seedDatabase } from './seed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SMOKE = process.env.BENCH_SMOKE === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMOKE ? 1 : 5));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (SMOKE ? 1 : 3));
const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS ?? 30_000);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'list,write,cold,big,workers').split(','));
const CONNECTIONS = SMOKE ? 4 : 50;
// The smoke run's load is capped (requests per second per run), so that it costs the suite little CPU.
const SMOKE_RATE = 100;
// Order counts. The smoke run keeps one size per scenario: its big list is over 10,000 orders, so it is
// streamed, and its writes have more pending orders than its capped second of cancels can use.
const SIZES = SMOKE
  ? { lists: [100], writes: 1_000, big: [20_000] }
  : { lists: [100, 10_000], writes: 400_000, big: [10_000, 100_000, 1_000_000] };
const COLD_ROUNDS = SMOKE ? ROUNDS : Math.max(ROUNDS, 5);

const ENTRIES = {
  project: `${root}dist/main.js`,
  // The project again, run with WORKERS=2 by the workers scenario.
  workers: `${root}dist/main.js`,
  naive: `${root}bench/servers/naive.mjs`,
  fastifyRoute: `${root}bench/servers/fastifyRoute.mjs`,
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

/** The contenders still running: a failure stops them all before the bench exits. */
const running = new Set();
/** The seeded databases' folders, removed when the bench ends either way. */
const folders = new Set();

async function seeded(orderCount) {
  const seed = await seedDatabase(orderCount);
  folders.add(dirname(seed.path));
  return seed;
}

function removeFolders() {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}

/** Ends the bench loudly: the reason on stderr, every contender stopped, exit status 1. */
function fail(reason) {
  for (const contender of running) contender.stop();
  removeFolders();
  console.error(`bench failed: ${reason}`);
  process.exit(1);
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => fail(`stopped by ${signal}`));

const described = (contender) =>
  `contender "${contender.kind}"; its stderr:\n${contender.stderr.trim() || '(empty)'}`;

/**
 * A contender on its own copy of `dbPath`; resolves once `probe` answers 200 (by default an
 * authenticated listOrders, which is also what cold start measures). The load scenarios start theirs
 * together; cold start starts one at a time, since it times them.
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
      // The quota stays on, so its cost is measured, but out of reach: the configuration's largest
      // count, per 60-second window, is more than one key can send at full speed.
      RATE_LIMIT_REQUESTS: '999999999',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const contender = {
    kind,
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: '',
    ready: false,
    stopped: false,
    stop() {
      contender.stopped = true;
      running.delete(contender);
      child.kill('SIGKILL');
    },
  };
  running.add(contender);
  child.stderr.on('data', (chunk) => {
    contender.stderr = (contender.stderr + chunk).slice(-16_384);
  });
  // 'close' comes after stderr has been read to its end, so the reason for the exit is in it.
  child.on('close', (code, signal) => {
    if (contender.stopped) return;
    const when = contender.ready ? 'during the run' : `before answering ${probe}`;
    fail(`${described(contender)}\n(it exited with ${signal ?? `status ${code}`} ${when})`);
  });
  child.on('error', (error) => fail(`${described(contender)}\n(it could not be started: ${error.message})`));

  const deadline = started + START_TIMEOUT_MS;
  let last = 'no answer';
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) {
      const timedOut = `${probe} did not answer 200 within ${START_TIMEOUT_MS} ms; last: ${last}`;
      fail(`${described(contender)}\n(${timedOut})`);
    }
    try {
      const response = await fetch(`${contender.url}${probe}`, {
        headers: { Authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(Math.ceil(left)),
      });
      await response.arrayBuffer();
      if (response.status === 200) break;
      last = `status ${response.status}`;
    } catch (error) {
      // Not listening yet, or the probe's own time ran out.
      last = error.cause?.code ?? error.name;
    }
    await sleep(5);
  }
  contender.ready = true;
  contender.coldStartMs = performance.now() - started;
  return contender;
}

function peakRssMiB(child) {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** One load run against `contender`; its average req/s. */
async function load(contender, path, key, { headers, ...options } = {}) {
  const result = await autocannon({
    url: `${contender.url}${path}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    ...(SMOKE && { overallRate: SMOKE_RATE }),
    headers: { Authorization: `Bearer ${key}`, ...headers },
    ...options,
  });
  // Figures of error answers would measure the wrong thing.
  if (result.errors > 0 || result.non2xx > 0) {
    const answers = `${result.errors} errors and ${result.non2xx} non-2xx answers`;
    fail(`${described(contender)}\n(${answers} to ${options.method ?? 'GET'} ${path} in a load run)`);
  }
  return result.requests.average;
}

/** Alternates the contenders' load runs over the rounds, then stops them unless `keep`; returns median req/s each. */
async function compare(contenders, run, { keep = false } = {}) {
  const samples = new Map(contenders.map(({ kind }) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) samples.get(contender.kind).push(await run(contender));
  }
  if (!keep) contenders.forEach((contender) => contender.stop());
  return Object.fromEntries([...samples].map(([kind, values]) => [kind, median(values)]));
}

const table = [];
function report(row) {
  table.push(row);
  console.log(`| ${row.join(' | ')} |`);
}

async function listScenario(orderCount) {
  const { path, key } = await seeded(orderCount);
  const contenders = await Promise.all(
    ['project', 'naive', 'fastifyRoute', 'limit'].map((kind) => start(kind, path, key)),
  );
  const rps = await compare(contenders, (contender) => load(contender, '/v1/store/orders', key));
  report([
    `listOrders, ${orderCount.toLocaleString('en')} orders`,
    `${Math.round(rps.project)} req/s`,
    [
      `naive ${Math.round(rps.naive)}`,
      `Fastify route ${Math.round(rps.fastifyRoute)}`,
      `limit ${Math.round(rps.limit)}`,
    ].join(', '),
    [
      `${ratio(rps.project, rps.fastifyRoute)} Fastify route (≥ 0.9×)`,
      `${ratio(rps.project, rps.limit)} limit (≥ 0.6×)`,
      `${ratio(rps.project, rps.naive)} naive (≥ 4×)`,
    ].join(', '),
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
  const { path, key } = await seeded(SIZES.writes);
  const cancel = await compare(
    await Promise.all([start('project', path, key), start('naive', path, key)]),
    (contender) => load(contender, '', key, { requests: cancelRequests(contender.kind) }),
  );
  report([
    'cancelOrder',
    `${Math.round(cancel.project)} req/s`,
    `bare Fastify (FULL) ${Math.round(cancel.naive)}`,
    `${ratio(cancel.project, cancel.naive)} (≥ 0.9×)`,
  ]);

  const send = await compare(
    await Promise.all([start('project', path, key), start('naive', path, key, { SYNCHRONOUS: 'NORMAL' })]),
    (contender) =>
      load(contender, '/v1/messages', key, {
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

/**
 * The project with 2 worker processes against 1, on this machine's cores, which the load generator (this
 * process) shares: listOrders(100), cancelOrder and sendMessage. Each pair has its own copies of one database.
 */
async function workersScenario() {
  const pair = async (orderCount) => {
    const { path, key } = await seeded(orderCount);
    const contenders = [start('project', path, key), start('workers', path, key, { WORKERS: '2' })];
    return { key, contenders: await Promise.all(contenders) };
  };
  const row = (operation, rps) =>
    report([
      `${operation}, 2 workers`,
      `${Math.round(rps.workers)} req/s`,
      `1 worker ${Math.round(rps.project)}`,
      `${ratio(rps.workers, rps.project)} 1 worker (${cores} cores, shared with the load generator)`,
    ]);
  const cores = availableParallelism();

  const lists = await pair(100);
  const list = await compare(lists.contenders, (contender) => load(contender, '/v1/store/orders', lists.key));
  row('listOrders, 100 orders', list);

  const writes = await pair(SIZES.writes);
  // The cancel run leaves both contenders up for the send run: each contender cancels its own next orders.
  const cancel = await compare(
    writes.contenders,
    (contender) => load(contender, '', writes.key, { requests: cancelRequests(`${contender.kind} of 2`) }),
    { keep: true },
  );
  row('cancelOrder', cancel);
  const send = await compare(writes.contenders, (contender) =>
    load(contender, '/v1/messages', writes.key, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'Hello from the benchmark' }),
    }),
  );
  row('sendMessage', send);
}

async function coldStartScenario() {
  const { path, key } = await seeded(100);
  const times = { project: [], naive: [] };
  for (let round = 0; round < COLD_ROUNDS; round++) {
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
  const { path, key } = await seeded(orderCount);
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
    if (response.status !== 200) fail(`${described(server)}\n(the list answered ${response.status})`);
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
      const response = await fetch(`${server.url}/healthz`);
      await response.arrayBuffer();
      if (response.status !== 200) fail(`${described(server)}\n(/healthz answered ${response.status})`);
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

/**
 * An error thrown while a contender is dying (a fetch cut off, say) is reported as that contender's death,
 * with its stderr, once its exit is seen; any other error as itself.
 */
async function failOnError(error) {
  const exits = [...running].map(({ child }) => new Promise((resolve) => child.once('close', resolve)));
  await Promise.race([Promise.any(exits), sleep(1_000)]).catch(() => {});
  fail(error?.stack ?? String(error));
}

async function main() {
  const mode = SMOKE ? 'smoke run (small data; the figures mean nothing), ' : '';
  console.log(`${mode}${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, medians.\n`);
  console.log('| Scenario | Project | Baselines | Ratio (target) |');
  console.log('|---|---|---|---|');
  if (ONLY.has('list')) for (const count of SIZES.lists) await listScenario(count);
  if (ONLY.has('write')) await writeScenarios();
  if (ONLY.has('cold')) await coldStartScenario();
  if (ONLY.has('big')) for (const count of SIZES.big) await bigListScenario(count);
  if (ONLY.has('workers')) await workersScenario();
}

await main().catch(failOnError);
removeFolders();
