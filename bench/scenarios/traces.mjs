// What tracing costs (issue 44): listOrders(100) and sendMessage with spans exported over OTLP to a
// collector on loopback, every trace sampled and 10% of them, against the same server without export (the
// default, which still keeps each request's trace context and writes it in its log fields and messages).
// CPU time per request of the server's process beside req/s, and the spans its queue dropped (none, for a
// figure that holds).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { compare, loadWithCpu, rpsAndCpu, SEND_MESSAGE } from '../harness/load.mjs';
import { cpuRatio, ratio, report } from '../harness/report.mjs';
import { root } from '../harness/settings.mjs';

/** The collector (harness/otlpSink.mjs), in a process of its own. */
async function collector() {
  const child = spawn(process.execPath, [`${root}bench/harness/otlpSink.mjs`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [port] = await once(child.stdout, 'data');
  return { endpoint: `http://127.0.0.1:${String(port).trim()}`, close: () => child.kill() };
}

/** Spans the contenders dropped so far (their queues full, or exports failed): a figure with drops flatters. */
async function droppedSpans(contenders) {
  const counts = await Promise.all(
    contenders.map(async (contender) => {
      const text = await (await fetch(`${contender.url}/metrics`)).text();
      return [...text.matchAll(/^store_orders_trace_spans_dropped_total\{[^}]*\} (\d+)/gm)].reduce((sum, [, n]) => sum + Number(n), 0);
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** The contenders' load runs, alternating, and the spans they dropped meanwhile. */
async function measured(contenders, run) {
  const before = await droppedSpans(contenders);
  const results = await compare(contenders, run, { keep: true });
  return { ...rpsAndCpu(results), dropped: (await droppedSpans(contenders)) - before };
}

function contenders(endpoint) {
  const exporting = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  return [
    project('off'),
    project('on', exporting),
    project('tenth', { ...exporting, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
  ];
}

function rows(scenario, { rps, cpuUs, dropped }, target) {
  report([
    `${scenario}, spans exported`,
    `${Math.round(rps.on)} req/s`,
    `export off ${Math.round(rps.off)}, 10% sampled ${Math.round(rps.tenth)}`,
    `${ratio(rps.on, rps.off)} off, 10% sampled ${ratio(rps.tenth, rps.off)} off`,
  ]);
  const us = (kind) => Math.round(cpuUs[kind]);
  report([
    `${scenario}, spans exported, CPU per request`,
    `${us('on')} µs`,
    `export off ${us('off')}, 10% sampled ${us('tenth')}`,
    `${cpuRatio(cpuUs, 'on', 'off')} off${target}, 10% sampled ${cpuRatio(cpuUs, 'tenth', 'off')} off; spans dropped ${dropped}`,
  ]);
}

export default {
  name: 'traces',
  async run() {
    const sink = await collector();
    const { path, key } = await seeded(100);
    // The same three servers for both: the messages sent after the lists change no list.
    const servers = await startAll(contenders(sink.endpoint), path, key);
    rows('listOrders, 100 orders', await measured(servers, (server) => loadWithCpu(server, '/v1/store/orders', key)), ' (≤ 1.25×)');
    rows('sendMessage', await measured(servers, (server) => loadWithCpu(server, '/v1/messages', key, SEND_MESSAGE)), '');
    servers.forEach((server) => server.stop());
    sink.close();
  },
};
