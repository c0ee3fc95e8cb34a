// The project on PostgreSQL: listOrders(100), cancelOrder and sendMessage against bare Fastify with pg, in
// req/s and in CPU time per request; two servers on one database against one; the whole list against psql's
// COPY of the same JSON to /dev/null.
// On BENCH_POSTGRES_URL's server, or a throwaway cluster; without either it prints why it skipped.
import { availableParallelism } from 'node:os';
import { ORDERS_AS_JSON } from '../../dist/store/postgres/orderStream.js';
import { baseline, peakRssMiB, project, start, startAll } from '../harness/contenders.mjs';
import {
  CANCELLABLE_ORDERS,
  cancelRequests,
  compare,
  loadSpread,
  loadWithCpu,
  rpsAndCpu,
  SEND_MESSAGE,
  serverPair,
} from '../harness/load.mjs';
import { postgresServer, seededPostgres } from '../harness/postgres.mjs';
import { cpuRatio, ratio, report } from '../harness/report.mjs';
import { SMOKE } from '../harness/settings.mjs';
import { readBigList, timed } from '../harness/wholeList.mjs';

const BIG_ORDER_COUNT = SMOKE ? 20_000 : 1_000_000;
const PROJECT = project();
const BARE_FASTIFY = baseline('pgRoute');

/** The project and bare Fastify + pg, each on a database of its own made from `seed`. */
async function againstBareFastify(seed) {
  const ours = await start(PROJECT, await seed.database(), seed.key);
  return [ours, await start(BARE_FASTIFY, await seed.database(), seed.key)];
}

/** Three rows: req/s, then CPU time per request in all and in user space, each against bare Fastify + pg. */
function rows(scenario, results, target) {
  const { rps, cpuUs, userCpuUs } = rpsAndCpu(results);
  report([
    `${scenario} on PostgreSQL`,
    `${Math.round(rps.project)} req/s`,
    `bare Fastify + pg ${Math.round(rps.pgRoute)}`,
    `${ratio(rps.project, rps.pgRoute)} bare Fastify + pg (${target})`,
  ]);
  for (const [part, us] of [
    ['CPU per request', cpuUs],
    ['CPU per request in user space', userCpuUs],
  ]) {
    report([
      `${scenario} on PostgreSQL, ${part}`,
      `${Math.round(us.project)} µs`,
      `bare Fastify + pg ${Math.round(us.pgRoute)}`,
      `${cpuRatio(us, 'pgRoute', 'project')} bare Fastify + pg`,
    ]);
  }
}

/** Two servers against one, on one database each pair: the reads, and the writes that every server shares. */
async function twoServers(lists) {
  const one = Object.assign(await start(PROJECT, lists.seed, lists.key), { kind: '1 server' });
  const servers = [one, serverPair('2 servers', await startAll([PROJECT, PROJECT], lists.seed, lists.key))];
  const list = await compare(servers, (contender) => loadSpread(contender, '/v1/store/orders', lists.key), { keep: true });
  const send = await compare(servers, (contender) => loadSpread(contender, '/v1/messages', lists.key, SEND_MESSAGE));
  for (const [operation, rps] of [['listOrders, 100 orders', list], ['sendMessage', send]]) {
    report([
      `${operation}, 2 servers on one PostgreSQL`,
      `${Math.round(rps['2 servers'])} req/s`,
      `1 server ${Math.round(rps['1 server'])}`,
      `${ratio(rps['2 servers'], rps['1 server'])} 1 server (${availableParallelism()} cores, shared with PostgreSQL and the load generator)`,
    ]);
  }
}

/** The whole list of many orders over HTTP, against psql's COPY of the same JSON. */
async function bigList(serverUrl) {
  const big = await seededPostgres(serverUrl, BIG_ORDER_COUNT);
  const psqlMs = timed('psql', ['-X', '-q', '-d', big.seed, '-o', '/dev/null', '-c', ORDERS_AS_JSON]);
  const lister = await start(PROJECT, big.seed, big.key, '/healthz');
  const idleRss = peakRssMiB(lister.child);
  // /readyz asks PostgreSQL through the API's pool, which the streamed list leaves free.
  const list = await readBigList(lister, big.key, '/readyz');
  lister.stop();
  report([
    `listOrders on PostgreSQL, ${BIG_ORDER_COUNT.toLocaleString('en')} orders (${(list.bytes / 1e6).toFixed(0)} MB)`,
    `${list.ms.toFixed(0)} ms over HTTP`,
    `psql COPY ${psqlMs.toFixed(0)} ms; peak RSS ${list.rss.toFixed(0)} MiB (idle ${idleRss.toFixed(0)})`,
    `${ratio(list.ms, psqlMs)} psql (≤ 1.5×); /readyz p99 ${list.p99.toFixed(0)} ms of ${list.count}`,
  ]);
}

export default {
  name: 'postgres',
  async run() {
    const server = await postgresServer();
    if (!server.url) {
      report(['PostgreSQL scenarios', `skipped: ${server.reason}`, '', '']);
      return;
    }
    const lists = await seededPostgres(server.url, 100);
    const listers = await againstBareFastify(lists);
    const list = (contender) => loadWithCpu(contender, '/v1/store/orders', lists.key);
    rows('listOrders, 100 orders,', await compare(listers, list), '≥ 1.0×');

    const writes = await seededPostgres(server.url, CANCELLABLE_ORDERS);
    const writers = await againstBareFastify(writes);
    const cancel = (contender) => loadWithCpu(contender, '', writes.key, cancelRequests(contender));
    rows('cancelOrder', await compare(writers, cancel, { keep: true }), '≥ 0.9×');
    const send = (contender) => loadWithCpu(contender, '/v1/messages', writes.key, SEND_MESSAGE);
    rows('sendMessage', await compare(writers, send), '≥ 0.9×');

    await twoServers(lists);
    await bigList(server.url);
  },
};
