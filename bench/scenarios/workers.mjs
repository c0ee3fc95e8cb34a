// The project with 2 worker processes against 1, on this machine's cores, which the load generator (this
// process) shares: listOrders(100), cancelOrder and sendMessage. Each pair has its own copies of one database.
import { availableParallelism } from 'node:os';
import { project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { CANCELLABLE_ORDERS, cancelRequests, compare, load, SEND_MESSAGE } from '../harness/load.mjs';
import { ratio, report } from '../harness/report.mjs';

const CONTENDERS = [project(), project('workers', { WORKERS: '2' })];

async function pair(orderCount) {
  const { path, key } = await seeded(orderCount);
  return { key, contenders: await startAll(CONTENDERS, path, key) };
}

function row(operation, rps) {
  report([
    `${operation}, 2 workers`,
    `${Math.round(rps.workers)} req/s`,
    `1 worker ${Math.round(rps.project)}`,
    `${ratio(rps.workers, rps.project)} 1 worker (${availableParallelism()} cores, shared with the load generator)`,
  ]);
}

export default {
  name: 'workers',
  async run() {
    const lists = await pair(100);
    const list = (contender) => load(contender, '/v1/store/orders', lists.key);
    row('listOrders, 100 orders', await compare(lists.contenders, list));

    const writes = await pair(CANCELLABLE_ORDERS);
    // The cancel run leaves both contenders up for the send run: each contender cancels its own next orders.
    const cancel = (contender) => load(contender, '', writes.key, cancelRequests(contender));
    row('cancelOrder', await compare(writes.contenders, cancel, { keep: true }));
    const send = (contender) => load(contender, '/v1/messages', writes.key, SEND_MESSAGE);
    row('sendMessage', await compare(writes.contenders, send));
  },
};
