// cancelOrder and sendMessage against naive, bare Fastify: the project keeps synchronous=FULL for both,
// naive runs FULL for the cancels and NORMAL for the messages.
import { baseline, project, startAll } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { CANCELLABLE_ORDERS, cancelRequests, compare, load, SEND_MESSAGE } from '../harness/load.mjs';
import { ratio, report } from '../harness/report.mjs';

const CANCELLERS = [project(), baseline('naive')];
const SENDERS = [project(), baseline('naive', { SYNCHRONOUS: 'NORMAL' })];

export default {
  name: 'write',
  async run() {
    const { path, key } = await seeded(CANCELLABLE_ORDERS);
    const cancel = await compare(await startAll(CANCELLERS, path, key), (contender) =>
      load(contender, '', key, cancelRequests(contender)),
    );
    report([
      'cancelOrder',
      `${Math.round(cancel.project)} req/s`,
      `bare Fastify (FULL) ${Math.round(cancel.naive)}`,
      `${ratio(cancel.project, cancel.naive)} (≥ 0.9×)`,
    ]);

    const send = await compare(await startAll(SENDERS, path, key), (contender) =>
      load(contender, '/v1/messages', key, SEND_MESSAGE),
    );
    report([
      'sendMessage (project FULL)',
      `${Math.round(send.project)} req/s`,
      `bare Fastify (NORMAL) ${Math.round(send.naive)}`,
      `${ratio(send.project, send.naive)} (≥ 1.0×)`,
    ]);
  },
};
