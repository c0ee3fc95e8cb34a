// What sharing the request quotas costs: listOrders(100) with the per-key quota on, as every process of a
// service shares it (out of reach, as in every scenario), against the same servers with both quotas off,
// which bounds the cost of sharing from above. On SQLite one server, and two workers whose primary keeps
// the count; on PostgreSQL one server, and two servers on one database, whose count is the database's.
import { project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { compare, loadSpread, serverPair } from '../harness/load.mjs';
import { postgresServer, seededPostgres } from '../harness/postgres.mjs';
import { ratio, report } from '../harness/report.mjs';

const OFF = { RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_AUTH_FAILURES: '0' };

function row(setting, rps) {
  report([
    `listOrders, 100 orders, quotas shared, ${setting}`,
    `${Math.round(rps.shared)} req/s`,
    `quotas off ${Math.round(rps.off)}`,
    `${ratio(rps.shared, rps.off)} quotas off (≥ 0.95×)`,
  ]);
}

/** The shared and the off contender, each of `servers` processes on its own copy of `database`. */
async function contenders(database, key, servers, env = {}) {
  if (servers === 1) return startAll([project('shared', env), project('off', { ...env, ...OFF })], database, key);
  const shared = await startAll([project('shared', env), project('shared', env)], database, key);
  const off = await startAll([project('off', { ...env, ...OFF }), project('off', { ...env, ...OFF })], database, key);
  return [serverPair('shared', shared), serverPair('off', off)];
}

async function measure(setting, database, key, servers, env) {
  const pair = await contenders(database, key, servers, env);
  row(setting, await compare(pair, (contender) => loadSpread(contender, '/v1/store/orders', key)));
}

export default {
  name: 'quota',
  async run() {
    const { path, key } = await seeded(100);
    await measure('1 server on SQLite', path, key, 1);
    await measure('2 workers on SQLite', path, key, 1, { WORKERS: '2' });
    const server = await postgresServer();
    if (!server.url) {
      report(['Quota scenarios on PostgreSQL', `skipped: ${server.reason}`, '', '']);
      return;
    }
    const lists = await seededPostgres(server.url, 100);
    // Every contender on the one database, which the lists only read: each pair shares its count there.
    const database = await lists.database();
    await measure('1 server on PostgreSQL', database, lists.key, 1);
    await measure('2 servers on one PostgreSQL', database, lists.key, 2);
  },
};
