// The pieces of the log output that need no process: which format a setting and a terminal give, how a
// record reads in the readable format, and which hosts count as loopback for the metrics warning.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../../src/telemetry/logOutput.js';
import { localTime, prettyLine } from '../../src/telemetry/prettyLog.js';
import { announceListening, isLoopback } from '../../src/telemetry/startup.js';

describe('chooseLogFormat', () => {
  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['pretty', false, 'pretty'],
    ['json', true, 'json'],
  ] as const)('LOG_FORMAT=%s on a terminal: %s gives %s', (setting, isTerminal, format) => {
    expect(chooseLogFormat(setting, isTerminal)).toBe(format);
  });
});

describe('prettyLine', () => {
  const time = Date.UTC(2026, 10, 23, 19, 12, 5, 123);
  const record = (fields: Record<string, unknown>) =>
    JSON.stringify({ level: 30, time, pid: 1, hostname: 'h', ...fields });

  it('shows time, level and message, then the fields as key=value, quoted when they need it', () => {
    expect(prettyLine(record({ msg: 'database opened', writable: true, database: '/tmp/a b.db' }))).toBe(
      `${localTime(time)} INFO  database opened writable=true database="/tmp/a b.db"\n`,
    );
  });

  it('keeps a record on its line: control characters in the message and fields are escaped', () => {
    const line = prettyLine(record({ level: 40, msg: 'two\nlines', note: 'a\r\nb' }));
    expect(line).toBe(`${localTime(time)} WARN  two\\nlines note="a\\r\\nb"\n`);
  });

  it("shows an error's type and message on the line and its stack below, indented", () => {
    const err = { type: 'TypeError', message: 'boom', stack: 'TypeError: boom\n    at f (a.js:1:1)\n    at g (b.js:2:2)' };
    expect(prettyLine(record({ level: 50, msg: 'request failed', reqId: 'r1', err }))).toBe(
      `${localTime(time)} ERROR request failed reqId=r1 err="TypeError: boom"\n    at f (a.js:1:1)\n    at g (b.js:2:2)\n`,
    );
  });

  it('shows an answered request as its method and route, status and duration, then its own fields', () => {
    const answered = record({
      reqId: 'r1',
      method: 'DELETE',
      route: '/v1/store/orders/{orderId}',
      apiVersion: 'v1',
      operationId: 'cancelOrder',
      res: { statusCode: 404 },
      code: 'order_not_found',
      account: 'acme',
      keyId: 3,
      responseTime: 1.234,
      msg: 'request completed',
    });
    expect(prettyLine(answered)).toBe(
      `${localTime(time)} INFO  request completed DELETE /v1/store/orders/{orderId} status=404 duration=1.2ms ` +
        'reqId=r1 apiVersion=v1 operationId=cancelOrder code=order_not_found account=acme keyId=3\n',
    );
    // A request that matched no route has its method alone.
    expect(prettyLine(record({ reqId: 'r2', method: 'GET', res: { statusCode: 404 }, msg: 'request completed' }))).toBe(
      `${localTime(time)} INFO  request completed GET status=404 reqId=r2\n`,
    );
  });

  it('passes a line that is not JSON through as it is', () => {
    expect(prettyLine('not json\n')).toBe('not json\n');
  });
});

describe('localTime', () => {
  it("is ISO 8601 in this machine's time zone, with its offset", () => {
    const time = Date.UTC(2026, 10, 23, 19, 12, 5, 123);
    const shown = localTime(time);
    expect(shown).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.123[+-]\d{2}:\d{2}$/);
    expect(new Date(shown.replace(' ', 'T')).getTime()).toBe(time);
  });
});

describe('isLoopback', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST'])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });
  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.internal', '128.0.0.1'])('%s is not', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});

describe('announceListening', () => {
  it.each([
    ['error', 1],
    ['fatal', 1],
    ['silent', 0],
  ] as const)('at LOG_LEVEL=%s writes %i line', async (level, count) => {
    const lines: string[] = [];
    const app = Fastify({ logger: { level, stream: { write: (line: string) => lines.push(line) } } });
    announceListening(app.log, 'http://127.0.0.1:3000', 'http://127.0.0.1:9464');
    await app.close();
    expect(lines).toHaveLength(count);
    if (count === 1) {
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        level: 30,
        msg: expect.stringMatching(
          /listening: API http:\/\/127\.0\.0\.1:3000\/v1 and http:\/\/127\.0\.0\.1:3000\/v2, reference http:\/\/127\.0\.0\.1:3000\/docs, metrics http:\/\/127\.0\.0\.1:9464\/metrics$/,
        ),
      });
    }
  });
});
