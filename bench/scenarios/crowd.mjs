// /healthz while a crowd asks for the long list (issue 40): 200 clients that send the request at once and
// never read, then 100 that read it in a loop. Each probe opens a connection of its own, as a load
// balancer's does, so it also waits for every connection queued before its own. The probes start with the
// crowd, which runs in a process of its own (harness/listCrowd.mjs), and go on for SECONDS once every client
// has sent its request (never reading) or had a first answer (looping). The first row takes every probe; the
// second those sent once the 100 were connected, and gives the longest of those before apart: while they
// connect, one a turn, each turn also answers the 503s that the clients already in retry at once. Each row:
// the probes' median, p99 and max (medians over the rounds), what the crowd got, and the longest the
// server's own event loop was held (its nodejs_eventloop_lag_max_seconds). Target: p99 < 100 ms, quiet machine.
import { fork } from 'node:child_process';
import { get } from 'node:http';
import { idle, project, start } from '../harness/contenders.mjs';
import { described, fail, seeded, sleep } from '../harness/lifecycle.mjs';
import { median, report } from '../harness/report.mjs';
import { ROUNDS, SECONDS, SMOKE } from '../harness/settings.mjs';
import { readWholeList } from '../harness/wholeList.mjs';

// Over 10,000, so that the list is streamed.
const ORDERS = SMOKE ? 20_000 : 50_000;
const CROWD_ENTRY = new URL('../harness/listCrowd.mjs', import.meta.url);
const NEVER_READING = 200;
const LOOPING = 100;
/** Between one probe's answer and the next probe: about a hundred probes in a 5-second run. */
const PROBE_PAUSE_MS = 50;

/** GET `path` on a connection of its own; its text and the time to its end, in ms. */
function probe(server, path) {
  const sent = performance.now();
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { agent: false }, (answer) => {
      let text = '';
      answer.on('data', (chunk) => (text += chunk));
      answer.on('end', () => {
        if (answer.statusCode !== 200) fail(`${described(server)}\n(${path} answered ${answer.statusCode})`);
        resolve({ text, ms: performance.now() - sent });
      });
    }).on('error', reject);
  });
}

/**
 * From the server's own /metrics: the listOrders answered 503 so far, and the longest its event loop was held
 * since the last scrape, in ms.
 */
async function scrape(server) {
  const { text } = await probe(server, '/metrics');
  const refused = /^store_orders_http_requests_total\{api="v1",operation="listOrders",status="503"\} (\d+)$/m;
  const held = /^nodejs_eventloop_lag_max_seconds (\S+)$/m;
  return { refused: Number(refused.exec(text)?.[1] ?? 0), heldMs: 1000 * Number(held.exec(text)?.[1]) };
}

/** How long the crowd may take to be all answered (or, stalled, to have sent its requests) before the bench fails. */
const CROWD_READY_GUARD_MS = 120_000;

/**
 * Probes /healthz while `mode`'s crowd of `clients` asks for the list, from its start until SECONDS after
 * every client has been answered once (stalled ones: has sent its request); each probe's time and latency.
 */
async function underCrowd(server, key, mode, clients) {
  const before = await scrape(server);
  const started = performance.now();
  const crowd = fork(CROWD_ENTRY, [server.url, key, mode, String(clients)], { stdio: 'inherit' });
  let readyAt = Infinity;
  crowd.on('message', (message) => {
    if (message.ready) readyAt = performance.now();
  });
  const probes = [];
  while (performance.now() < readyAt + SECONDS * 1000) {
    if (performance.now() - started > CROWD_READY_GUARD_MS) fail(`the ${mode} crowd was never all answered`);
    const sentAt = performance.now();
    probes.push({ sentAt, ms: (await probe(server, '/healthz')).ms });
    await sleep(PROBE_PAUSE_MS);
  }
  const got = await new Promise((resolve) => {
    crowd.on('message', (message) => message.got && resolve(message.got));
    crowd.send('stop');
  });
  await new Promise((resolve) => (crowd.exitCode === null ? crowd.once('exit', resolve) : resolve()));
  const after = await scrape(server);
  return {
    all: latencies(probes),
    connected: latencies(probes.filter(({ sentAt }) => sentAt >= readyAt)),
    connecting: latencies(probes.filter(({ sentAt }) => sentAt < readyAt)),
    readyMs: readyAt - started,
    got,
    refused: after.refused - before.refused,
    heldMs: after.heldMs,
  };
}

/** The probes' median, p99 and max latency, in ms, and their count. */
function latencies(probes) {
  const sorted = probes.map(({ ms }) => ms).sort((a, b) => a - b);
  const at = (fraction) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? NaN;
  return { median: at(0.5), p99: at(0.99), max: at(1), count: sorted.length };
}

/** One row: the probes of `part` of each round (medians over the rounds), and what else it says. */
function reportCrowd(scenario, rounds, part, what) {
  const of = (field) => median(rounds.map((round) => round[part][field]));
  const heldMs = median(rounds.map((round) => round.heldMs));
  report([
    `/healthz, ${scenario}, ${ORDERS.toLocaleString('en')} orders`,
    `median ${of('median').toFixed(1)} ms, p99 ${of('p99').toFixed(0)} ms, max ${of('max').toFixed(0)} ms`,
    `${of('count')} probes; ${what(rounds.at(-1))}; the server's event loop held ≤ ${heldMs.toFixed(0)} ms`,
    'p99 < 100 ms',
  ]);
}

export default {
  name: 'crowd',
  async run() {
    const { path, key } = await seeded(ORDERS);
    const server = await start(project(), path, key, '/healthz');
    // The list's way warmed, and its reader opened, before anything is measured.
    await readWholeList(server, key);
    const stalled = [];
    const looping = [];
    for (let round = 0; round < ROUNDS; round++) {
      await idle(server);
      stalled.push(await underCrowd(server, key, 'stall', NEVER_READING));
      await idle(server);
      looping.push(await underCrowd(server, key, 'loop', LOOPING));
    }
    server.stop();
    reportCrowd(`${NEVER_READING} clients that never read the long list`, stalled, 'all', (last) =>
      `last round: ${NEVER_READING - last.refused} lists streamed, ${last.refused} 503s`,
    );
    reportCrowd(`${LOOPING} clients reading the long list in a loop, once connected`, looping, 'connected', (last) => {
      const { got, readyMs, connecting } = last;
      const before = `while they connected (${readyMs.toFixed(0)} ms) ${connecting.count} probes`;
      return `last round: ${got.lists} lists, ${got.refused} 503s, ${got.other} other; ${before}, max ${connecting.max.toFixed(0)} ms`;
    });
  },
};
