// listOrders (v1, the whole list) against four baselines: its req/s, and the CPU time each request costs
// each contender's process, in all and in user space, as ratios of speed (the baseline's CPU per request
// over the project's).
import { baseline, project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { compare, loadWithCpu, rpsAndCpu } from '../harness/load.mjs';
import { cpuRatio, ratio, report } from '../harness/report.mjs';
import { SMOKE } from '../harness/settings.mjs';

const CONTENDERS = [project(), ...['naive', 'fastifyRoute', 'featuredRoute', 'limit'].map((name) => baseline(name))];
const ORDER_COUNTS = SMOKE ? [100] : [100, 10_000];

async function listScenario(orderCount) {
  const { path, key } = await seeded(orderCount);
  const contenders = await startAll(CONTENDERS, path, key);
  const { rps, cpuUs, userCpuUs } = rpsAndCpu(
    await compare(contenders, (contender) => loadWithCpu(contender, '/v1/store/orders', key)),
  );
  const orders = `listOrders, ${orderCount.toLocaleString('en')} orders`;
  reportRps(orders, rps);
  reportCpu(`${orders}, CPU per request`, cpuUs);
  reportCpu(`${orders}, CPU per request in user space`, userCpuUs);
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
  const us = (kind) => Math.round(cpuUs[kind]);
  report([
    scenario,
    `${us('project')} µs`,
    [
      `naive ${us('naive')}`,
      `Fastify route ${us('fastifyRoute')}`,
      `featured route ${us('featuredRoute')}`,
      `limit ${us('limit')}`,
    ].join(', '),
    [
      `${cpuRatio(cpuUs, 'fastifyRoute', 'project')} Fastify route`,
      `${cpuRatio(cpuUs, 'featuredRoute', 'project')} featured route`,
      `featured route itself ${cpuRatio(cpuUs, 'fastifyRoute', 'featuredRoute')} Fastify route`,
    ].join(', '),
  ]);
}

export default {
  name: 'list',
  async run() {
    for (const orderCount of ORDER_COUNTS) await listScenario(orderCount);
  },
};
