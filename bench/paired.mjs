// CPU time per request of servers compared in pairs, the measure of a change to the hot path (issue 28).
// Each contender is started afresh several times, in turn, so that what one process happens to compile
// weighs on no figure alone; within a start, rounds alternate the contenders. A contender's figure is the
// median over its starts of each start's median, printed beside every start's own, with its ratio to the
// first contender's. A contender is `project` (this build), a baseline of bench/servers/ by name, or the
// dist/main.js of another build by its path (a build of the commit before a change, say).
// Usage: npm run build && node bench/paired.mjs project featuredRoute [more contenders]. PAIRED_STARTS (8),
// PAIRED_ROUNDS (2 per start) and PAIRED_REQUESTS (20,000 per round) change the run; each start first
// warms each contender with 8,000 requests. The request is listOrders on 100 orders. Measure on a quiet
// machine: this machine's speed moves by a third from one minute to the next, which the pairs share.
// test/scripts/paired.test.ts runs it small, to keep it working, not to time it.
import { baseline, contender, project, start } from './harness/contenders.mjs';
import { cleanUp, failOnError, seeded } from './harness/lifecycle.mjs';
import { loadWithCpu } from './harness/load.mjs';
import { median } from './harness/report.mjs';

const STARTS = Number(process.env.PAIRED_STARTS ?? 8);
const ROUNDS = Number(process.env.PAIRED_ROUNDS ?? 2);
const REQUESTS = Number(process.env.PAIRED_REQUESTS ?? 20_000);
const WARM_UP = Math.min(8_000, REQUESTS);
const PATH = '/v1/store/orders';

const declared = (name) => {
  if (name === 'project') return project();
  // Named by its path, in characters a file name takes: start() names the contender's copy of the database so.
  if (name.endsWith('.js')) return contender(name.replace(/[^A-Za-z0-9]+/g, '-'), name);
  return baseline(name);
};

async function main() {
  const names = process.argv.slice(2);
  if (names.length === 0) throw new Error('name the contenders: project, a baseline of bench/servers/, or a dist/main.js');
  const { path, key } = await seeded(100);
  const perStart = new Map(names.map((name) => [name, []]));
  for (let startIndex = 0; startIndex < STARTS; startIndex++) {
    const order = startIndex % 2 === 0 ? names : [...names].reverse();
    const running = [];
    for (const name of order) running.push({ name, server: await start(declared(name), path, key) });
    for (const { server } of running) await loadWithCpu(server, PATH, key, { amount: WARM_UP });
    const rounds = new Map(names.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, server } of round % 2 === 0 ? running : [...running].reverse()) {
        rounds.get(name).push(await loadWithCpu(server, PATH, key, { amount: REQUESTS }));
      }
    }
    for (const { name, server } of running) {
      const measured = rounds.get(name);
      perStart.get(name).push({ all: median(measured.map(({ cpuUs }) => cpuUs)), user: median(measured.map(({ userCpuUs }) => userCpuUs)) });
      server.stop();
    }
  }
  const figure = (name, part) => median(perStart.get(name).map((start) => start[part]));
  const [first] = names;
  console.log(`listOrders(100), ${STARTS} starts × ${ROUNDS} rounds of ${REQUESTS} requests, CPU µs per request:`);
  // A start's contenders share its minutes of the machine: the median of their ratios within each start
  // is the steadier figure when the machine's speed moved between starts.
  const perStartRatio = (name) =>
    median(perStart.get(name).map(({ all }, index) => all / perStart.get(first)[index].all));
  console.log('| Contender | in all | in user space | each start, in all | in all, against the first | the same, per start |');
  console.log('|---|---|---|---|---|---|');
  for (const name of names) {
    const starts = perStart.get(name).map(({ all }) => all.toFixed(1)).join(', ');
    const against = (figure(name, 'all') / figure(first, 'all')).toFixed(3);
    const row = [name, figure(name, 'all').toFixed(1), figure(name, 'user').toFixed(1), starts, `${against}×`, `${perStartRatio(name).toFixed(3)}×`];
    console.log(`| ${row.join(' | ')} |`);
  }
  cleanUp();
}

main().catch(failOnError);
