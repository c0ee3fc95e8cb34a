// The whole list of many orders, streamed: read once alone (timed, against sqlite3 -json of the same rows)
// and once while four clients keep calling /healthz (their p99); the server's peak memory.
import { project, peakRssMiB, start } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { ratio, report } from '../harness/report.mjs';
import { SMOKE } from '../harness/settings.mjs';
import { readBigList, timed } from '../harness/wholeList.mjs';

// The smoke run's one size is over 10,000 orders, so that its list is streamed.
const ORDER_COUNTS = SMOKE ? [20_000] : [10_000, 100_000, 1_000_000];
const SQL = `SELECT id, pet_id AS petId, quantity, ship_date AS shipDate, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`;

async function bigListScenario(orderCount) {
  const { path, key } = await seeded(orderCount);
  const cliMs = timed('sqlite3', ['-json', path, SQL]);

  // Ready on /healthz, so the list is read for the first time by the measured request.
  const server = await start(project(), path, key, '/healthz');
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

export default {
  name: 'big',
  async run() {
    for (const orderCount of ORDER_COUNTS) await bigListScenario(orderCount);
  },
};
