// Each request's logger, as Fastify makes it from the listener's logger: its lines carry the request's
// bindings, its trace and the listener's, at the listener's level unless the route gives it one.
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogs } from '../../src/telemetry/requestLog.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/**
 * A listener whose logger, at `level`, writes into `lines`, with a binding of its own; its one route runs
 * `route` with the request's logger (at `routeLevel`, if given) and answers 200.
 */
async function requestLines(
  level: string,
  route: (log: FastifyBaseLogger) => void,
  options: { routeLevel?: 'debug'; headers?: Record<string, string> } = {},
): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const stream = { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) };
  const app = Fastify({
    loggerInstance: pino({ level }, stream).child({ listener: 'api' }),
    childLoggerFactory: lazyRequestLogs,
    disableRequestLogging: true,
  });
  app.get('/', { ...(options.routeLevel !== undefined && { logLevel: options.routeLevel }) }, (request, reply) => {
    route(request.log);
    return reply.send('ok');
  });
  const answer = await app.inject({ url: '/', headers: options.headers ?? {} });
  await app.close();
  expect(answer.statusCode).toBe(200);
  return lines;
}

describe("a request's logger", () => {
  it('writes with the request id, its trace and the listener’s bindings, and only at the listener’s level', async () => {
    const lines = await requestLines('warn', (log) => {
      log.info('not written');
      log.warn({ detail: 1 }, 'written');
    });
    expect(lines).toEqual([
      expect.objectContaining({ listener: 'api', reqId: 'req-1', detail: 1, msg: 'written', level: 40 }),
    ]);
    expect(lines[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[0]?.spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('continues the caller’s trace in a span of its own, the same on every line', async () => {
    const lines = await requestLines(
      'info',
      (log) => {
        log.info('first');
        log.child({ step: 'auth' }).warn('nested');
      },
      { headers: { traceparent: TRACEPARENT } },
    );
    expect(lines.map(({ msg, traceId, step }) => [msg, traceId, step])).toEqual([
      ['first', TRACE_ID, undefined],
      ['nested', TRACE_ID, 'auth'],
    ]);
    expect(lines[0]?.spanId).not.toBe('00f067aa0ba902b7');
    expect(lines[1]?.spanId).toBe(lines[0]?.spanId);
  });

  it('writes below the listener’s level on a route given a level of its own, or once given one later', async () => {
    const fromRoute = await requestLines('warn', (log) => log.debug('from the route'), { routeLevel: 'debug' });
    expect(fromRoute).toEqual([expect.objectContaining({ reqId: 'req-1', msg: 'from the route', traceId: expect.any(String) })]);
    const later = await requestLines('warn', (log) => {
      log.level = 'info';
      log.info('from its level');
      expect(log.level).toBe('info');
    });
    expect(later.map(({ msg }) => msg)).toEqual(['from its level']);
  });
});
