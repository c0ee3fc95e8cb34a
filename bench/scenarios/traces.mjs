// What tracing costs (issue 44): listOrders(100) and sendMessage with spans exported over OTLP to a
// collector on loopback, every trace sampled and 10% of them, against the same server without export (the
// default, which still keeps each request's trace context and writes it in its log fields and messages).
// CPU time per request of the server's process beside req/s: the collector runs in the bench's process.
import { createServer } from 'node:http';
import { project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { compare, loadWithCpu, rpsAndCpu, SEND_MESSAGE } from '../harness/load.mjs';
import { cpuRatio, ratio, report } from '../harness/report.mjs';

/** An OTLP/HTTP collector that takes every export and keeps nothing. */
async function collector() {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'Content-Type': request.headers['content-type'] }).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

function contenders(endpoint) {
  const exporting = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  return [
    project('off'),
    project('on', exporting),
    project('tenth', { ...exporting, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
  ];
}

function rows(scenario, { rps, cpuUs }, target) {
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
    `${cpuRatio(cpuUs, 'on', 'off')} off${target}, 10% sampled ${cpuRatio(cpuUs, 'tenth', 'off')} off`,
  ]);
}

export default {
  name: 'traces',
  async run() {
    const sink = await collector();
    const { path, key } = await seeded(100);
    const list = await compare(await startAll(contenders(sink.endpoint), path, key), (contender) =>
      loadWithCpu(contender, '/v1/store/orders', key),
    );
    rows('listOrders, 100 orders', rpsAndCpu(list), ' (≤ 1.25×)');
    const send = await compare(await startAll(contenders(sink.endpoint), path, key), (contender) =>
      loadWithCpu(contender, '/v1/messages', key, SEND_MESSAGE),
    );
    rows('sendMessage', rpsAndCpu(send), '');
    sink.close();
  },
};
