// listOrders (v1, the whole list) against four baselines: its req/s, and the CPU time each request costs
// each contender's process, as ratios of speed (the baseline's CPU per request over the project's).
import { baseline, cpuMs, project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { compare, loadResult } from '../harness/load.mjs';
import { median, ratio, report } from '../harness/report.mjs';
import { SMOKE } from '../harness/settings.mjs';

const CONTENDERS = [project(), ...['naive', 'fastifyRoute', 'featuredRoute', 'limit'].map((name) => baseline(name))];
const ORDER_COUNTS = SMOKE ? [100] : [100, 10_000];

async function listScenario(orderCount) {
  const { path, key } = await seeded(orderCount);
  const contenders = await startAll(CONTENDERS, path, key);
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
  const orders = `listOrders, ${orderCount.toLocaleString('en')} orders`;
  reportRps(orders, rps);
  reportCpu(`${orders}, CPU per request`, cpuUs);
}

function reportRps(scenario, rps) {
  report([
    scenario,
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
}

function reportCpu(scenario, cpuUs) {
  // A smoke run's few requests can cost less than one tick of the CPU clock.
  const faster = (baseline, contender) => (cpuUs[contender] > 0 ? ratio(cpuUs[baseline], cpuUs[contender]) : '— (under a tick)');
  report([
    scenario,
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

export default {
  name: 'list',
  async run() {
    for (const orderCount of ORDER_COUNTS) await listScenario(orderCount);
  },
};
