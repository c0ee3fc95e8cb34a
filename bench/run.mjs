// `npm run bench`: the project against its baselines, side by side in one run. Each scenario starts
// every contender on its own copy of the same database, then alternates their load runs over ROUNDS
// rounds and prints medians and ratios. BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) tune it;
// BENCH_ONLY=list,write,cold,big,workers,postgres,pages picks scenarios. BENCH_SMOKE=1 runs every scenario once on small data,
// one 1-second round at a low request rate, to prove the bench still works at little cost (the test suite
// runs it); its figures mean nothing. The list scenario also prints the CPU time per request of each
// contender (its whole process), as ratios of speed: the baseline's CPU per request over the project's.
// Any contender that exits, never answers its probe within BENCH_START_TIMEOUT_MS (default 30000), or
// answers a load run with an error ends the bench at once with exit status 1, its name and its stderr.
// The postgres scenario runs on BENCH_POSTGRES_URL's server (a database of its own per contender), or else
// on a throwaway cluster that scripts/throwaway-postgres.sh starts; without either it prints why it skipped.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { ORDERS_AS_JSON } from '../dist/store/postgres/orderStream.js';
import { seedDatabase } from './seed.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SMOKE = process.env.BENCH_SMOKE === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMOKE ? 1 : 5));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (SMOKE ? 1 : 3));
const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS ?? 30_000);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'list,write,cold,big,workers,postgres,pages').split(','));
const CONNECTIONS = SMOKE ? 4 : 50;
// The smoke run's load is capped (requests per second per run), so that it costs the suite little CPU.
const SMOKE_RATE = 100;
// Order counts. The smoke run keeps one size per scenario: its big list is over 10,000 orders, so it is
// streamed, and its writes have more pending orders than its capped second of cancels can use.
const SIZES = SMOKE
  ? { lists: [100], writes: 1_000, big: [20_000], postgresBig: 20_000, pages: 20_000 }
  : { lists: [100, 10_000], writes: 400_000, big: [10_000, 100_000, 1_000_000], postgresBig: 1_000_000, pages: 1_000_000 };
const COLD_ROUNDS = SMOKE ? ROUNDS : Math.max(ROUNDS, 5);

const ENTRIES = {
  project: `${root}dist/main.js`,
  // The project again, run with WORKERS=2 by the workers scenario.
  workers: `${root}dist/main.js`,
  naive: `${root}bench/servers/naive.mjs`,
  fastifyRoute: `${root}bench/servers/fastifyRoute.mjs`,
  featuredRoute: `${root}bench/servers/featuredRoute.mjs`,
  limit: `${root}bench/servers/limit.mjs`,
  naivePages: `${root}bench/servers/naivePages.mjs`,
  pgRoute: `${root}bench/servers/pgRoute.mjs`,
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
/** What else the bench ends, either way: the PostgreSQL cluster it started. */
const cleanups = [];

async function seeded(orderCount, options) {
  const seed = await seedDatabase(orderCount, options);
  folders.add(dirname(seed.path));
  return seed;
}

function removeFolders() {
  for (const cleanup of cleanups.splice(0)) cleanup();
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
 * A contender on its own copy of the SQLite file at `database`, or on the PostgreSQL database it names;
 * resolves once `probe` answers 200 (by default an authenticated listOrders, which is also what cold start
 * measures). The load scenarios start theirs together; cold start starts one at a time, since it times them.
 */
async function start(kind, database, key, env = {}, probe = '/v1/store/orders') {
  let copy = database;
  if (!database.startsWith('postgres://')) {
    copy = `${database}.${kind}.${Math.random().toString(36).slice(2)}`;
    copyFileSync(database, copy);
  }
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
async function load(contender, path, key, options) {
  return (await loadResult(contender, path, key, options)).requests.average;
}

/** One load run against `contender`; autocannon's result. */
async function loadResult(contender, path, key, { headers, ...options } = {}) {
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
  return result;
}

/** CPU time the contender's process has used, every thread, in ms (Linux's /proc, in ticks of 10 ms). */
function cpuMs(contender) {
  const fields = readFileSync(`/proc/${contender.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
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
    ['project', 'naive', 'fastifyRoute', 'featuredRoute', 'limit'].map((kind) => start(kind, path, key)),
  );
  // Besides req/s, the CPU each request costs: the load generator shares the machine's cores, so the
  // fastest contenders' req/s is partly its own limit, which CPU time per request is not.
  const cpu = new Map(contenders.map(({ kind }) => [kind, []]));
  const rps = await compare(contenders, async (contender) => {
    const before = cpuMs(contender);
    const result = await loadResult(contender, '/v1/store/orders', key);
    cpu.get(contender.kind).push(((cpuMs(contender) - before) * 1000) / result.requests.total);
    return result.requests.average;
  });
  const cpuUs = Object.fromEntries([...cpu].map(([kind, values]) => [kind, Math.round(median(values))]));
  // A smoke run's few requests can cost less than one tick of the CPU clock.
  const faster = (baseline, contender) => (cpuUs[contender] > 0 ? ratio(cpuUs[baseline], cpuUs[contender]) : '— (under a tick)');
  report([
    `listOrders, ${orderCount.toLocaleString('en')} orders`,
    `${Math.round(rps.project)} req/s`,
    [
      `naive ${Math.round(rps.naive)}`,
      `Fastify route ${Math.round(rps.fastifyRoute)}`,
      `featured route ${Math.round(rps.featuredRoute)}`,
      `limit ${Math.round(rps.limit)}`,
    ].join(', '),
    [
      `${ratio(rps.project, rps.fastifyRoute)} Fastify route (≥ 0.9×)`,
      `${ratio(rps.project, rps.limit)} limit (≥ 0.6×)`,
      `${ratio(rps.project, rps.naive)} naive (≥ 4×)`,
      `${ratio(rps.project, rps.featuredRoute)} featured route`,
      `featured route itself ${ratio(rps.featuredRoute, rps.fastifyRoute)} Fastify route`,
    ].join(', '),
  ]);
  report([
    `listOrders, ${orderCount.toLocaleString('en')} orders, CPU per request`,
    `${cpuUs.project} µs`,
    [
      `naive ${cpuUs.naive}`,
      `Fastify route ${cpuUs.fastifyRoute}`,
      `featured route ${cpuUs.featuredRoute}`,
      `limit ${cpuUs.limit}`,
    ].join(', '),
    [
      `${faster('fastifyRoute', 'project')} Fastify route`,
      `${faster('featuredRoute', 'project')} featured route`,
      `featured route itself ${faster('fastifyRoute', 'featuredRoute')} Fastify route`,
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

/** GET /v1/store/orders (every order) read to its end by one client: its wall time and bytes. */
async function readWholeList(server, key) {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/store/orders`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  if (response.status !== 200) fail(`${described(server)}\n(the list answered ${response.status})`);
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  return { ms: performance.now() - started, bytes };
}

/**
 * The whole list read by one client, timed; then again while four clients keep asking for `smallPath`, each
 * of whose latencies counts, including the requests held up by the list.
 */
async function readBigList(server, key, smallPath) {
  const readList = () => readWholeList(server, key);
  const { ms, bytes } = await readList();
  let listing = true;
  const latencies = [];
  const smallClient = async () => {
    while (listing) {
      const sent = performance.now();
      const response = await fetch(`${server.url}${smallPath}`);
      await response.arrayBuffer();
      if (response.status !== 200) fail(`${described(server)}\n(${smallPath} answered ${response.status})`);
      latencies.push(performance.now() - sent);
    }
  };
  const smallClients = Array.from({ length: 4 }, smallClient);
  await readList();
  listing = false;
  await Promise.all(smallClients);
  const p99 = [...latencies].sort((x, y) => x - y)[Math.floor(latencies.length * 0.99)];
  return { ms, bytes, p99, count: latencies.length, rss: peakRssMiB(server.child) };
}

function timed(command, args) {
  const started = performance.now();
  execFileSync(command, args, { maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'inherit'] });
  return performance.now() - started;
}

async function bigListScenario(orderCount) {
  const { path, key } = await seeded(orderCount);
  const sql = `SELECT id, pet_id AS petId, quantity, ship_date AS shipDate, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`;
  const cliMs = timed('sqlite3', ['-json', path, sql]);

  // Ready on /healthz, so the list is read for the first time by the measured request.
  const server = await start('project', path, key, {}, '/healthz');
  const baselineRss = peakRssMiB(server.child);
  const list = await readBigList(server, key, '/healthz');
  server.stop();
  report([
    `listOrders, ${orderCount.toLocaleString('en')} orders (${(list.bytes / 1e6).toFixed(0)} MB)`,
    `${list.ms.toFixed(0)} ms over HTTP`,
    `sqlite3 -json ${cliMs.toFixed(0)} ms; peak RSS ${list.rss.toFixed(0)} MiB (idle ${baselineRss.toFixed(0)})`,
    `${ratio(list.ms, cliMs)} sqlite3 (≤ 2×); small requests p99 ${list.p99.toFixed(0)} ms of ${list.count} (≤ 50)`,
  ]);
}

/** The PostgreSQL server to bench on: BENCH_POSTGRES_URL's, or a throwaway one; undefined and why, if none. */
async function postgresServer() {
  if (process.env.BENCH_POSTGRES_URL) return { url: process.env.BENCH_POSTGRES_URL };
  const folder = mkdtempSync(join(tmpdir(), 'store-orders-bench-pg-'));
  const script = `${root}scripts/throwaway-postgres.sh`;
  try {
    const url = execFileSync(script, ['start', folder, String(await freePort())], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    cleanups.push(() => {
      execFileSync(script, ['stop', folder], { stdio: 'ignore' });
      rmSync(folder, { recursive: true, force: true });
    });
    return { url };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    return { reason: String(error.stderr ?? error.message).trim().split('\n').at(-1) };
  }
}

/** Runs SQL as the server's administrator (databases cannot be created in a transaction or a pool). */
async function asAdmin(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * `orderCount` orders moved onto PostgreSQL as a user moves up (store-orders copy), into a template database;
 * `database()` makes a new database from it for each contender. All are dropped when the bench ends.
 */
async function seededPostgres(adminUrl, orderCount) {
  const { path, key } = await seeded(orderCount);
  const name = (suffix) => `store_orders_bench_${process.pid}_${orderCount}_${suffix}`;
  const urlOf = (database) => Object.assign(new URL(adminUrl), { pathname: `/${database}` }).href;
  const create = async (database, template) => {
    await asAdmin(adminUrl, `CREATE DATABASE ${database}${template ? ` TEMPLATE ${template}` : ''}`);
    // Run synchronously (also from `fail`), before the cluster the bench started is stopped.
    cleanups.unshift(() =>
      execFileSync('psql', ['-X', '-q', '-d', adminUrl, '-c', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`], {
        stdio: 'ignore',
      }),
    );
  };
  await create(name('seed'));
  execFileSync(process.execPath, [`${root}dist/cli/main.js`, 'copy', '--to', urlOf(name('seed'))], {
    env: { ...process.env, DATABASE_URL: path },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let copies = 0;
  return {
    key,
    seed: urlOf(name('seed')),
    async database() {
      const database = name(++copies);
      await create(database, name('seed'));
      return urlOf(database);
    },
  };
}

/** Two servers on one database, loaded at once with half the connections each: their req/s summed. */
function serverPair(members) {
  return {
    kind: '2 servers',
    members,
    stop: () => members.forEach((member) => member.stop()),
  };
}

async function loadSpread(contender, path, key, options) {
  if (!contender.members) return load(contender, path, key, options);
  const halves = contender.members.map((member) =>
    load(member, path, key, {
      ...options,
      connections: CONNECTIONS / 2,
      ...(SMOKE && { overallRate: SMOKE_RATE / 2 }),
    }),
  );
  return (await Promise.all(halves)).reduce((sum, rps) => sum + rps, 0);
}

/**
 * The project on PostgreSQL: listOrders(100), cancelOrder and sendMessage against bare Fastify with pg; the
 * whole list against psql's COPY of the same JSON to /dev/null; two servers on one database against one.
 */
async function postgresScenario() {
  const server = await postgresServer();
  if (!server.url) {
    report(['PostgreSQL scenarios', `skipped: ${server.reason}`, '', '']);
    return;
  }
  const send = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: 'Hello from the benchmark' }),
  };
  const row = (scenario, rps, against) =>
    report([
      `${scenario} on PostgreSQL`,
      `${Math.round(rps.project)} req/s`,
      `${against} ${Math.round(rps.baseline)}`,
      `${ratio(rps.project, rps.baseline)} ${against}`,
    ]);
  const bareFastify = async (seed) => [
    await start('project', await seed.database(), seed.key),
    Object.assign(await start('pgRoute', await seed.database(), seed.key), { kind: 'baseline' }),
  ];

  const lists = await seededPostgres(server.url, 100);
  const list = await compare(await bareFastify(lists), (contender) => load(contender, '/v1/store/orders', lists.key));
  row('listOrders, 100 orders,', list, 'bare Fastify + pg');

  const writes = await seededPostgres(server.url, SIZES.writes);
  const writers = await bareFastify(writes);
  const cancel = await compare(
    writers,
    (contender) => load(contender, '', writes.key, { requests: cancelRequests(`postgres ${contender.kind}`) }),
    { keep: true },
  );
  row('cancelOrder', cancel, 'bare Fastify + pg');
  row('sendMessage', await compare(writers, (contender) => load(contender, '/v1/messages', writes.key, send)), 'bare Fastify + pg');

  // Two servers against one, on one database each pair: the reads, and the writes that every server shares.
  const one = await start('project', lists.seed, lists.key);
  const pair = serverPair(await Promise.all([start('project', lists.seed, lists.key), start('project', lists.seed, lists.key)]));
  const servers = [Object.assign(one, { kind: '1 server' }), pair];
  const spreadList = await compare(servers, (contender) => loadSpread(contender, '/v1/store/orders', lists.key), { keep: true });
  const spreadSend = await compare(servers, (contender) => loadSpread(contender, '/v1/messages', lists.key, send));
  for (const [operation, rps] of [['listOrders, 100 orders', spreadList], ['sendMessage', spreadSend]]) {
    report([
      `${operation}, 2 servers on one PostgreSQL`,
      `${Math.round(rps['2 servers'])} req/s`,
      `1 server ${Math.round(rps['1 server'])}`,
      `${ratio(rps['2 servers'], rps['1 server'])} 1 server (${availableParallelism()} cores, shared with PostgreSQL and the load generator)`,
    ]);
  }

  const big = await seededPostgres(server.url, SIZES.postgresBig);
  const psqlMs = timed('psql', ['-X', '-q', '-d', big.seed, '-o', '/dev/null', '-c', ORDERS_AS_JSON]);
  const lister = await start('project', big.seed, big.key, {}, '/healthz');
  const idleRss = peakRssMiB(lister.child);
  // /readyz asks PostgreSQL through the API's pool, which the streamed list leaves free.
  const bigList = await readBigList(lister, big.key, '/readyz');
  lister.stop();
  report([
    `listOrders on PostgreSQL, ${SIZES.postgresBig.toLocaleString('en')} orders (${(bigList.bytes / 1e6).toFixed(0)} MB)`,
    `${bigList.ms.toFixed(0)} ms over HTTP`,
    `psql COPY ${psqlMs.toFixed(0)} ms; peak RSS ${bigList.rss.toFixed(0)} MiB (idle ${idleRss.toFixed(0)})`,
    `${ratio(bigList.ms, psqlMs)} psql (≤ 1.5×); /readyz p99 ${bigList.p99.toFixed(0)} ms of ${bigList.count}`,
  ]);
}

/** The CPU time `child` has used so far, in clock ticks (utime and stime of /proc/<pid>/stat). */
function cpuTicks(child) {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Resolves once `contender` has been idle for half a second (1 clock tick of CPU at most), that is, has
 * answered what a load run left it: a server that answers from SQLite blocks while it reads, so requests
 * cut off by the run's end are still answered one after another, and a request sent to wait behind them
 * may be read first. Fails after 10 minutes.
 */
async function idle(contender) {
  const deadline = performance.now() + 600_000;
  for (let before = cpuTicks(contender.child); performance.now() < deadline; ) {
    await sleep(500);
    const now = cpuTicks(contender.child);
    if (now - before <= 1) return;
    before = now;
  }
  fail(`${described(contender)}\n(it was still busy 10 minutes after a load run)`);
}

/** The walks' page size: the contract's largest, which also spares the OFFSET baseline the most pages. */
const WALK_LIMIT = 1_000;

/** The target of `link`'s `rel="next"` (RFC 8288), resolved against `server`; undefined on the last page. */
function nextPageUrl(server, link) {
  const next = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link ?? '');
  return next && new URL(next[1], server.url).href;
}

/**
 * Every page from `firstPath` on, following each answer's `Link: <…>; rel="next"` as a client does, each
 * body read to its end; the wall time, the pages and the bytes. `onPage`, when given, sees each page parsed
 * (the untimed walk that checks the pages and finds the deep cursor).
 */
async function walkPages(server, key, firstPath, onPage) {
  const started = performance.now();
  let url = `${server.url}${firstPath}`;
  let pages = 0;
  let bytes = 0;
  while (url) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) fail(`${described(server)}\n(${url} answered ${response.status} in a walk)`);
    pages += 1;
    bytes += body.length;
    onPage?.(JSON.parse(body.toString('utf8')));
    url = nextPageUrl(server, response.headers.get('link'));
  }
  return { ms: performance.now() - started, pages, bytes };
}

/**
 * One walk of the project's pages, untimed, checking that it lists every order once in id order, with
 * `hasMore` and `nextCursor` as the contract says; the `nextCursor` of the page that ends `depth` orders in.
 */
async function deepCursor(server, key, orderCount, depth) {
  let seen = 0;
  let cursor;
  const broken = (why) => fail(`${described(server)}\n(the walk of its pages ${why})`);
  await walkPages(server, key, `/v2/store/orders?limit=${WALK_LIMIT}`, (page) => {
    for (const order of page.data) if (order.id !== ++seen) broken(`listed order ${order.id} as order ${seen}`);
    if (page.hasMore !== seen < orderCount || page.hasMore !== (page.nextCursor !== undefined))
      broken(`said hasMore ${page.hasMore}, nextCursor ${page.nextCursor} after ${seen} orders`);
    if (seen === depth) cursor = page.nextCursor;
  });
  if (seen !== orderCount) broken(`ended after ${seen} of ${orderCount} orders`);
  return cursor;
}

/**
 * API v2's pages of orders against the OFFSET pages of bare Fastify (naivePages.mjs), on copies of one file
 * where every 100th order is shipped: the first page of 100, the page 90% deep (by cursor; by OFFSET), the
 * first page of the shipped orders (1%); then a walk of every page against one v1 list of the same orders.
 */
async function pagesScenario(orderCount) {
  const { path, key } = await seeded(orderCount, { shippedEvery: 100 });
  const probe = '/v2/store/orders?limit=1';
  const [project, naive] = await Promise.all([start('project', path, key, {}, probe), start('naivePages', path, key, {}, probe)]);
  const depth = Math.floor((orderCount * 0.9) / WALK_LIMIT) * WALK_LIMIT;
  const cursor = await deepCursor(project, key, orderCount, depth);

  const pagesWanted = Math.ceil(orderCount / WALK_LIMIT);
  const walks = { project: [], naivePages: [], list: [] };
  let walkBytes = 0;
  // The OFFSET walk reads about orderCount² / (2 × WALK_LIMIT) rows (minutes at 1,000,000 orders): once.
  for (let round = 0; round < ROUNDS; round++) {
    const order = [project, 'list', ...(round === 0 ? [naive] : [])];
    for (const contender of round % 2 === 0 ? order : order.reverse()) {
      if (contender === 'list') {
        walks.list.push((await readWholeList(project, key)).ms);
        continue;
      }
      const walk = await walkPages(contender, key, `/v2/store/orders?limit=${WALK_LIMIT}`);
      if (walk.pages !== pagesWanted) fail(`${described(contender)}\n(its walk took ${walk.pages} pages, not ${pagesWanted})`);
      walks[contender.kind].push(walk.ms);
      if (contender === project) walkBytes = walk.bytes;
    }
  }

  const firstPath = '/v2/store/orders?limit=100';
  const paths = {
    first: { project: firstPath, naivePages: firstPath },
    deep: { project: `${firstPath}&cursor=${cursor}`, naivePages: `${firstPath}&page=${depth / 100 + 1}` },
    shipped: { project: `${firstPath}&status=shipped`, naivePages: `${firstPath}&status=shipped` },
  };
  // Each round loads the three pages in turn, so that whatever else loads the machine weighs on each alike.
  // 50 connections wait on an OFFSET page 90% deep in turn, longer than autocannon's default 10 s; its
  // req/s are counted as completed requests over the run's time (a few a second, which autocannon's average
  // of whole seconds rounds down); and the next run waits until the contender has answered the requests
  // still in flight when a run ended (up to 50 OFFSET pages), so that no backlog takes the next run's cores.
  const samples = Object.fromEntries(Object.keys(paths).map((page) => [page, { project: [], naivePages: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const page of Object.keys(paths)) {
      for (const contender of round % 2 === 0 ? [project, naive] : [naive, project]) {
        const result = await loadResult(contender, paths[page][contender.kind], key, { timeout: 120 });
        await idle(contender);
        samples[page][contender.kind].push(result.requests.total / result.duration);
      }
    }
  }
  project.stop();
  naive.stop();
  const medians = (page) => ({ project: median(samples[page].project), naivePages: median(samples[page].naivePages) });
  const [first, deep, shipped] = ['first', 'deep', 'shipped'].map(medians);
  const perSecond = (rps) => (rps < 10 ? rps.toFixed(1) : Math.round(rps));

  const rpsRow = (scenario, rps, more = '') =>
    report([
      scenario,
      `${perSecond(rps.project)} req/s`,
      `naive OFFSET ${perSecond(rps.naivePages)}`,
      `${ratio(rps.project, rps.naivePages)} naive OFFSET${more}`,
    ]);
  const count = orderCount.toLocaleString('en');
  const deepBy = (kind) => ratio(first[kind], deep[kind]);
  rpsRow(`v2 listOrders, first page of 100, ${count} orders`, first);
  rpsRow(
    `v2 listOrders, page ${depth.toLocaleString('en')} deep`,
    deep,
    `; time per page deep/first ${deepBy('project')} (≤ 1.2×), naive OFFSET's ${deepBy('naivePages')}`,
  );
  rpsRow('v2 listOrders, status=shipped (1%)', shipped);
  const walk = median(walks.project);
  report([
    `v2 walk of every page (limit ${WALK_LIMIT.toLocaleString('en')}), ${count} orders (${(walkBytes / 1e6).toFixed(0)} MB)`,
    `${walk.toFixed(0)} ms`,
    `v1 list ${median(walks.list).toFixed(0)} ms; naive OFFSET walk ${median(walks.naivePages).toFixed(0)} ms`,
    `${ratio(walk, median(walks.list))} v1 list, ${ratio(walk, median(walks.naivePages))} naive OFFSET walk`,
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
  if (ONLY.has('postgres')) await postgresScenario();
  if (ONLY.has('pages')) await pagesScenario(SIZES.pages);
}

await main().catch(failOnError);
removeFolders();
