// What the server process writes for a person to read: its log lines in either format, the start-up line
// at any level, the warning for metrics open beyond loopback, the stop messages in their order, and the
// request ids they carry.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer, untilLogged } from '../support/processes.js';

const BUSY_THREADPOOL = fileURLToPath(new URL('../support/busyThreadpool.mjs', import.meta.url));

let folder: string;
let running: ServerProcess | undefined;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-logs-'));
});
afterEach(async () => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    running.child.kill('SIGKILL');
    await running.finished;
  }
  running = undefined;
  rmSync(folder, { recursive: true, force: true });
});

async function start(env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  running = await spawnServer({ DATABASE_URL: join(folder, 'store.db'), ...env });
  return running;
}

/** SIGTERM, and the stop messages in their order, whatever the format, where the level shows them. */
async function stop(server: ServerProcess, { logsInfo = true } = {}) {
  server.child.kill('SIGTERM');
  const finished = await server.finished;
  expect(finished.code).toBe(0);
  if (!logsInfo) return finished;
  const lines = finished.stdout.trimEnd().split('\n');
  const stopping = lines.findIndex((line) => line.includes('stopping: no new connections'));
  const stopped = lines.findIndex((line) => /\bstopped\b/.test(line));
  expect(stopping).toBeGreaterThanOrEqual(0);
  expect(stopped).toBeGreaterThan(stopping);
  return finished;
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('stopping', () => {
  it('logs "stopping" before "stopped", every time', async () => {
    for (let round = 0; round < 2; round += 1) await stop(await start());
  });

  it('logs "stopping" before "stopped" while the thread pool is busy', async () => {
    await stop(
      await start({
        UV_THREADPOOL_SIZE: '1',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${BUSY_THREADPOOL}`,
      }),
    );
  });
});

const PRETTY = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/;

describe('the log format', () => {
  it('is one readable line per record with LOG_FORMAT=pretty: local time, level, message, key=value', async () => {
    const before = Date.now();
    // A zone with a half-hour offset and no summer time, so that the offset shown is known.
    const server = await start({ LOG_FORMAT: 'pretty', LOG_LEVEL: 'debug', TZ: 'Asia/Kolkata' });
    const response = await fetch(`${server.baseUrl}/healthz`, { headers: { 'X-Request-Id': 'trace-7' } });
    expect(response.status).toBe(200);
    const { stdout } = await stop(server);
    const lines = stdout.trimEnd().split('\n');
    for (const line of lines) {
      expect(line).toMatch(PRETTY);
      const time = new Date(line.slice(0, 29).replace(' ', 'T'));
      expect(line.slice(23, 29)).toBe('+05:30');
      expect(time.getTime()).toBeGreaterThanOrEqual(before);
      expect(time.getTime()).toBeLessThanOrEqual(Date.now());
    }
    expect(lines).toContainEqual(expect.stringMatching(/ DEBUG incoming request GET \/healthz reqId=trace-7 traceId=[0-9a-f]{32} spanId=[0-9a-f]{16}$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/ INFO {2}request completed GET \/healthz status=200 duration=\d+\.\dms reqId=trace-7 traceId=[0-9a-f]{32} spanId=[0-9a-f]{16}$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/ INFO {2}stopping: no new connections.* signal=SIGTERM$/));
  });

  it('is JSON lines with LOG_FORMAT=json, as on any output that is not a terminal', async () => {
    const server = await start({ LOG_FORMAT: 'json' });
    const { stdout } = await stop(server);
    const lines = jsonLines(stdout);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      expect(line).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) }));
    }
    // On loopback (the default HOST), /metrics open is no warning.
    expect(lines.filter((line) => (line.level as number) >= 40)).toEqual([]);
  });

  it('refuses an unknown LOG_FORMAT at start, exit 1, naming the choices', async () => {
    const refused = spawnServer({ DATABASE_URL: join(folder, 'store.db'), LOG_FORMAT: 'colour' });
    await expect(refused).rejects.toThrow(/exited with 1[^]*bad configuration: LOG_FORMAT must be one of auto, pretty, json, got "colour"/);
  });
});

describe('the listening line', () => {
  const listening = (baseUrl: string, metricsUrl = baseUrl) =>
    `store-orders ${VERSION} listening: API ${baseUrl}/v1 and ${baseUrl}/v2, reference ${baseUrl}/docs, metrics ${metricsUrl}/metrics`;

  it('names the API root, /docs and /metrics', async () => {
    const server = await start();
    const { stdout } = await stop(server);
    expect(jsonLines(stdout).map((line) => line.msg)).toContain(listening(server.baseUrl));
  });

  it('shows at LOG_LEVEL=warn, alone of the info lines', async () => {
    const server = await start({ LOG_LEVEL: 'warn' });
    const { stdout } = await stop(server, { logsInfo: false });
    const lines = jsonLines(stdout);
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: listening(server.baseUrl) })]);
  });
});

describe('metrics beyond loopback', () => {
  const warning = /\/metrics is open to anyone who can reach HOST=0\.0\.0\.0: set METRICS_TOKEN/;

  it('warns at start when HOST is not a loopback address and METRICS_TOKEN is unset', async () => {
    const server = await start({ HOST: '0.0.0.0' });
    const { stdout } = await stop(server);
    const lines = jsonLines(stdout);
    const warned = lines.filter((line) => warning.test(line.msg as string));
    expect(warned).toEqual([expect.objectContaining({ level: 40 })]);
    // Listening on every interface, the line names the loopback one.
    expect(lines.map((line) => line.msg)).toContainEqual(expect.stringContaining(`API ${server.baseUrl}/v1 and ${server.baseUrl}/v2,`));
  });

  it('warns for a metrics listener of its own on such a HOST too, naming its port', async () => {
    const server = await start({ HOST: '0.0.0.0', METRICS_PORT: '0' });
    const { stdout } = await stop(server);
    const warned = jsonLines(stdout).filter((line) => warning.test(line.msg as string));
    expect(warned).toHaveLength(1);
    const port = /:(\d+)\/metrics is open/.exec(warned[0]?.msg as string)?.[1];
    expect(port).not.toBe(new URL(server.baseUrl).port);
  });

  it('does not warn when METRICS_TOKEN is set', async () => {
    const server = await start({ HOST: '0.0.0.0', METRICS_TOKEN: 'metrics-token-for-tests-0123456789' });
    const { stdout } = await stop(server);
    expect(stdout).not.toContain('METRICS_TOKEN');
    expect(jsonLines(stdout).filter((line) => line.level === 40)).toEqual([]);
  });
});

describe('request ids', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  /** Every 8-character piece of a key: none may be logged. */
  const piecesOf = (key: string) => Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));

  /** A request written on a socket of its own, for what fetch will not send; resolves with the reply's X-Request-Id. */
  function rawRequestId(baseUrl: string, text: string): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      let reply = '';
      const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1', () => socket.write(text));
      socket.on('data', (chunk) => {
        reply += String(chunk);
      });
      socket.on('close', () => resolve(/\r\nx-request-id: ([^\r]*)\r\n/i.exec(reply)?.[1]));
      socket.on('error', reject);
    });
  }

  it('answers and logs a new id for an X-Request-Id that may be a key, and no 8-character piece of the key', async () => {
    const server = await start({ LOG_LEVEL: 'trace', LOG_FORMAT: 'json', METRICS_PORT: '0' });
    const created = await runCliInProcess(['keys', 'create', '--account', 'acme'], { DATABASE_URL: join(folder, 'store.db') });
    const key = created.stdout.trim();
    // Logged once every listener listens, after the API's own line, for which the start waited.
    const metricsLine = /metrics (http:\/\/\S+\/metrics)/;
    await untilLogged(server, metricsLine);
    const metricsUrl = metricsLine.exec(server.output.stdout)?.[1] as string;
    expect(metricsUrl).not.toContain(server.baseUrl);
    const auth = { Authorization: `Bearer ${key}` };
    const json = { ...auth, 'Content-Type': 'application/json' };
    const given: string[] = [];
    for (const id of [key, `trace-${key}-7`, key.toUpperCase(), `SoK_${key.slice(4)}`]) {
      const requests: [string, RequestInit][] = [
        [`${server.baseUrl}/v1/store/orders`, { headers: auth }],
        [`${server.baseUrl}/v2/store/orders`, { headers: auth }],
        [`${server.baseUrl}/v1/messages`, { method: 'POST', headers: json, body: '{"message":"hi"}' }],
        [`${server.baseUrl}/v1/store/orders/1`, { method: 'DELETE' }],
        [`${server.baseUrl}/healthz`, {}],
        [`${server.baseUrl}/nope`, {}],
      ];
      for (const [url, init] of requests) {
        const response = await fetch(url, { ...init, headers: { ...init.headers, 'X-Request-Id': id } });
        await response.arrayBuffer();
        given.push(response.headers.get('x-request-id') ?? '');
      }
      // The metrics listener logs nothing, but answers with an id too.
      const scrape = await fetch(metricsUrl, { headers: { 'X-Request-Id': id } });
      await scrape.arrayBuffer();
      expect(scrape.headers.get('x-request-id')).toMatch(UUID);
      // Answered outside Fastify, by Node's own events.
      const head = `Host: x\r\nX-Request-Id: ${id}\r\n`;
      given.push((await rawRequestId(server.baseUrl, `CONNECT x:443 HTTP/1.1\r\n${head}\r\n`)) ?? '');
      const expecting = `POST /v1/messages HTTP/1.1\r\n${head}Expect: later\r\nContent-Length: 2\r\n\r\n{}`;
      given.push((await rawRequestId(server.baseUrl, expecting)) ?? '');
    }
    // An ordinary id is still echoed and logged.
    const ordinary = await fetch(`${server.baseUrl}/healthz`, { headers: { 'X-Request-Id': 'trace-42' } });
    expect(ordinary.headers.get('x-request-id')).toBe('trace-42');

    const { stdout, stderr } = await stop(server);
    expect(given).toHaveLength(32);
    for (const id of given) expect(id).toMatch(UUID);
    expect(new Set(given).size).toBe(given.length);
    const logged = new Set(jsonLines(stdout).map((line) => line.reqId));
    expect(given.filter((id) => !logged.has(id))).toEqual([]);
    expect(logged).toContain('trace-42');
    for (const piece of [...piecesOf(key), ...piecesOf(key.toUpperCase())]) expect(stdout + stderr).not.toContain(piece);
  });
});
