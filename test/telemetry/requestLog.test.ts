// Each request's logger, as Fastify makes it from the listener's logger: its lines carry the request's
// bindings and the listener's, at the listener's level unless the request's logger is given one.
import Fastify from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { withLazyRequestLogs } from '../../src/telemetry/requestLog.js';

/** A listener's logger at `level` writing into `lines`, with a binding of its own. */
function listenerLog(level: string, lines: Record<string, unknown>[]) {
  const stream = { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) };
  return withLazyRequestLogs(pino({ level }, stream).child({ listener: 'api' }));
}

describe("a request's logger", () => {
  it('writes with its bindings and the listener’s, and only at the listener’s level', () => {
    const lines: Record<string, unknown>[] = [];
    const request = listenerLog('warn', lines).child({ reqId: 'r1' }, {});
    request.info('not written');
    request.warn({ detail: 1 }, 'written');
    expect(lines).toEqual([expect.objectContaining({ listener: 'api', reqId: 'r1', detail: 1, msg: 'written', level: 40 })]);
  });

  it('writes below the listener’s level once given a level of its own, at once or later', () => {
    const lines: Record<string, unknown>[] = [];
    const log = listenerLog('warn', lines);
    log.child({ reqId: 'r1' }, { level: 'debug' }).debug('from its options');
    const later = log.child({ reqId: 'r2' }, {});
    later.level = 'info';
    later.info('from its level');
    expect(lines.map(({ reqId, msg }) => [reqId, msg])).toEqual([
      ['r1', 'from its options'],
      ['r2', 'from its level'],
    ]);
    expect(later.level).toBe('info');
  });

  it('makes children that carry every binding above them', () => {
    const lines: Record<string, unknown>[] = [];
    listenerLog('info', lines).child({ reqId: 'r1' }, {}).child({ step: 'auth' }).info('nested');
    expect(lines).toEqual([expect.objectContaining({ listener: 'api', reqId: 'r1', step: 'auth', msg: 'nested' })]);
  });

  it('is the logger Fastify gives a request, with its id, when the listener has it as its logger instance', async () => {
    const lines: Record<string, unknown>[] = [];
    const app = Fastify({ loggerInstance: listenerLog('warn', lines), disableRequestLogging: true });
    app.get('/', (request, reply) => {
      request.log.warn('from the route');
      return reply.send('ok');
    });
    const answer = await app.inject('/');
    await app.close();
    expect(answer.statusCode).toBe(200);
    expect(lines).toEqual([expect.objectContaining({ listener: 'api', reqId: 'req-1', msg: 'from the route' })]);
  });
});
