// WORKERS=N: N server processes on one port, as an operator runs them, on one database: a SQLite file, or
// PostgreSQL in `npm run test:postgres` (TEST_STORE=postgres). Which process answered a request is read from
// its log line (each line has the process's pid and the request's id), never from the response.
import { readFileSync, rmSync } from 'node:fs';
import { type RequestOptions, request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { setTimeout } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { assertHonoursContract } from './support/contract.js';
import { rawRequest } from './support/http.js';
import { allSamples, type Scrape, valueOf } from './support/metrics.js';
import { parsePrometheusText } from './support/prometheusText.js';
import { runCliInProcess } from './support/commandLine.js';
import { CLI_ENTRY, type Finished, runCli, type ServerProcess, spawnServer } from './support/processes.js';
import { SERVER_BACKEND, useScratchDatabase } from './support/storeBackends.js';

const scratch = useScratchDatabase<ServerProcess>('store-orders-workers-', SERVER_BACKEND);
// `npm run test:postgres` runs this file again on PostgreSQL (TEST_STORE=postgres) for what the store can
// change: workers killed or stopped while their writes are in flight. How the processes start, share the
// port, take signals, add up their metrics and read their arguments is the same whatever store they use,
// and is run on SQLite only.
const againOnAnotherStore = SERVER_BACKEND !== 'sqlite';
// Runs before the scratch folder's own clean-up: a primary killed there leaves its workers to exit by
// themselves, after the folder is gone.
afterEach(() => {
  for (const server of scratch.servers) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) continue;
    const workers = workerPids(server);
    server.child.kill('SIGKILL');
    for (const pid of workers) process.kill(pid, 'SIGKILL');
  }
});

type LogLine = Record<string, unknown> & { pid: number; msg: string };

function logLines(server: ServerProcess): LogLine[] {
  return server.output.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Resolves with the log once `done` holds for it; rejects if the server exits first. */
function untilLogged(server: ServerProcess, done: (lines: LogLine[]) => boolean): Promise<LogLine[]> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const lines = logLines(server);
      if (!done(lines)) return;
      server.child.stdout?.off('data', look);
      resolve(lines);
    };
    server.child.stdout?.on('data', look);
    void server.finished.then((result) => reject(new Error(`the server exited: ${result.stderr}`)));
    look();
  });
}

const listening = (lines: LogLine[]) =>
  new Set(lines.filter((line) => line.msg.startsWith('Server listening at')).map((line) => line.pid));

/** The pids of the processes the primary started, from the kernel. */
function workerPids(server: ServerProcess): number[] {
  const pid = server.child.pid as number;
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The pid whose log line says it completed the request with this id. */
function answeredBy(lines: LogLine[], requestId: string): number | undefined {
  return lines.find((line) => line.reqId === requestId && line.msg === 'request completed')?.pid;
}

/**
 * A client's patience, for the one connection node:cluster's primary may keep open and never answer: a
 * hang guard, beyond the longest the server lets a request wait for its store before it answers 503 (5 s
 * on SQLite, DATABASE_QUERY_TIMEOUT_MS's 7 s on PostgreSQL), so a request a worker does take is answered
 * first, even on a busy machine.
 */
const NO_ANSWER_MS = 10_000;

/** POST /v1/messages on a connection of its own (no agent), with `id` as its X-Request-Id. */
function sendMessageOptions(port: string, key: string, id: string): RequestOptions {
  return {
    port,
    host: '127.0.0.1',
    method: 'POST',
    path: '/v1/messages',
    agent: false,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Request-Id': id },
  };
}

/**
 * A 503 that tells the client to send again: the store was busy past one of its bounds and wrote nothing.
 * On a machine kept busy by other work, the worker started in place of a killed one can answer its first
 * burst so on PostgreSQL: each connection of its new pool must be made within the pool's 2 s wait (as in
 * test/scale/multiInstance.test.ts). A 503 for a write that was in fact done would still show, as the
 * message stored twice.
 */
function retryAfterOf(status: number, headers: Headers, bodyText: string): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (status !== 503 || retryAfter === null || !/^[0-9]+$/.test(retryAfter)) return undefined;
  const body = JSON.parse(bodyText) as { code?: unknown; status?: unknown };
  return body.code === 'service_unavailable' && body.status === 503 ? Number(retryAfter) : undefined;
}

/**
 * sendMessage on a connection of its own, closed after the answer, as many separate clients send: the
 * primary hands each new connection to the next worker, a replacement included. Resolves to the status, and
 * to the seconds to wait before sending again when the answer says so.
 */
function sendOnNewConnection(baseUrl: string, key: string, id: string): Promise<{ status: number; retryAfter?: number }> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const sending = request(
      sendMessageOptions(port, key, id),
      (response) => {
        let bodyText = '';
        response.on('data', (chunk) => {
          bodyText += String(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          const headers = new Headers(response.headers as Record<string, string>);
          const status = response.statusCode ?? 0;
          try {
            const retryAfter = retryAfterOf(status, headers, bodyText);
            if (retryAfter !== undefined) return resolve({ status, retryAfter });
            assertHonoursContract({ method: 'POST', path: '/v1/messages', status, headers, bodyText });
            resolve({ status });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    sending.on('error', reject);
    sending.setTimeout(NO_ANSWER_MS, () =>
      sending.destroy(Object.assign(new Error('no answer'), { code: 'NO_ANSWER' })),
    );
    sending.end(JSON.stringify({ message: id }));
  });
}

/** What the server logged as failed requests (the cause of a 5xx), for a test's failure message. */
function failedRequests(server: ServerProcess): string {
  return JSON.stringify(logLines(server).filter((line) => line.msg === 'request failed'));
}

async function startWorkers(env: NodeJS.ProcessEnv = {}): Promise<{ server: ServerProcess; key: string }> {
  const server = await spawnServer({ ...scratch.env, WORKERS: '2', LOG_FORMAT: 'json', ...env });
  scratch.servers.push(server);
  await untilLogged(server, (lines) => listening(lines).size === 2);
  const created = await runCliInProcess(['keys', 'create', '--account', 'acme'], scratch.env);
  return { server, key: created.stdout.trim().split('\n').at(-1) as string };
}

describe('WORKERS=2', () => {
  it.skipIf(againOnAnotherStore)('answers from two worker processes on one port, the primary serving nothing itself', async () => {
    const { server } = await startWorkers();
    // Concurrent requests take a connection each, and the primary hands connections to the workers in turn.
    const ids = Array.from({ length: 8 }, (_, i) => `spread-${i}`);
    const answers = await Promise.all(
      ids.map((id) => rawRequest(`${server.baseUrl}/healthz`, { headers: { 'X-Request-Id': id } })),
    );
    expect(answers.map(({ status }) => status)).toEqual(ids.map(() => 200));
    const lines = await untilLogged(server, (log) => ids.every((id) => answeredBy(log, id) !== undefined));
    const pids = new Set(ids.map((id) => answeredBy(lines, id)));
    expect([...pids].sort()).toEqual(workerPids(server).sort());
    expect(pids.size).toBe(2);
    expect(pids).not.toContain(server.child.pid);
  });

  it('replaces a worker killed with SIGKILL under load: no 5xx but a busy store\'s 503, sent again, and the replacement serves', async () => {
    const { server, key } = await startWorkers();
    const victim = workerPids(server)[0] as number;
    const statuses: number[] = [];
    const failures: string[] = [];
    const acknowledged: string[] = [];
    let loading = true;
    let sent = 0;
    const sentAgain: string[] = [];
    const client = async (c: number) => {
      let id = `load-${c}-${sent++}`;
      while (loading) {
        try {
          const { status, retryAfter } = await sendOnNewConnection(server.baseUrl, key, id);
          if (retryAfter !== undefined) {
            sentAgain.push(id);
            await setTimeout(retryAfter * 1000);
            continue;
          }
          statuses.push(status);
          if (status === 202) acknowledged.push(id);
        } catch (error) {
          // A connection the killed worker held: its request is cut off, not answered.
          failures.push((error as NodeJS.ErrnoException).code ?? (error as Error).message);
        }
        id = `load-${c}-${sent++}`;
      }
    };
    const clients = Array.from({ length: 8 }, (_, c) => client(c));
    await untilLogged(server, (lines) => lines.filter((line) => line.msg === 'request completed').length >= 40);
    const before = listening(logLines(server));
    process.kill(victim, 'SIGKILL');
    // A replacement listens, then completes requests of the load.
    const lines = await untilLogged(server, (log) =>
      log.some((line) => line.msg === 'request completed' && !before.has(line.pid)),
    );
    loading = false;
    await Promise.all(clients);

    const replacement = lines.find((line) => line.msg === 'request completed' && !before.has(line.pid))?.pid;
    const survivor = [...before].find((pid) => pid !== victim);
    expect(workerPids(server).sort()).toEqual([survivor, replacement].sort());
    expect(statuses.length).toBeGreaterThan(40);
    expect(statuses.filter((status) => status !== 202), failedRequests(server)).toEqual([]);
    // Cut off: the requests in flight on the killed worker, reset; and the connection the primary was
    // handing to it when it died, if any: node:cluster's round-robin primary keeps that connection open
    // and never answers it, so only the client's own time-out ends it.
    expect(failures.filter((code) => code !== 'ECONNRESET' && code !== 'NO_ANSWER'), failedRequests(server)).toEqual([]);
    expect(failures.filter((code) => code === 'NO_ANSWER').length).toBeLessThanOrEqual(1);
    expect(failures.length).toBeLessThanOrEqual(8);
    console.log(
      `killed worker under load: ${statuses.length} answered 202, cut off: ${failures.join(', ') || 'none'}, ` +
        `sent again after a busy 503: ${sentAgain.length}`,
    );
    const stored = JSON.parse((await runCliInProcess(['messages', 'list'], scratch.env)).stdout) as { message: string }[];
    const kept = stored.map(({ message }) => message);
    expect(acknowledged.filter((id) => !kept.includes(id))).toEqual([]);
    expect(kept.length).toBe(new Set(kept).size);
  });

  it.each(['SIGTERM', 'SIGHUP'] as const)('stops every worker on %s once each has answered its requests in flight, then exits 0', async (signal) => {
    // At debug, each worker logs a request as it arrives: the signal comes once all four are in.
    const { server, key } = await startWorkers({ LOG_LEVEL: 'debug' });
    const { port } = new URL(server.baseUrl);
    // Requests whose bodies are still arriving when the signal comes, on connections of both workers.
    const slow = Array.from({ length: 4 }, (_, i) => {
      const id = `slow-${i}`;
      let finish = () => {};
      const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const sending = request(
          sendMessageOptions(port, key, id),
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
            );
          },
        );
        sending.on('error', reject);
        sending.write('{"message":');
        finish = () => sending.end(`"${id}"}`);
      });
      return { id, answer, finish: () => finish() };
    });
    const incoming = await untilLogged(server, (lines) =>
      slow.every(({ id }) => lines.some((line) => line.reqId === id && line.msg === 'incoming request')),
    );
    const holders = new Set(slow.map(({ id }) => incoming.find((line) => line.reqId === id)?.pid));
    expect([...holders].sort()).toEqual(workerPids(server).sort());

    server.child.kill(signal);
    const stopping = (lines: LogLine[]) =>
      new Set(lines.filter((line) => line.msg.startsWith('stopping: no new connections')).map((line) => line.pid));
    await untilLogged(server, (lines) => stopping(lines).size === 2);
    for (const request of slow) request.finish();
    const answers = await Promise.all(slow.map(({ answer }) => answer));
    expect(answers).toEqual(slow.map(() => ({ status: 202, connection: 'close' })));
    const finished = await server.finished;
    expect(finished.code).toBe(0);
    const primary = logLines({ ...server, output: finished }).filter((line) => line.pid === server.child.pid);
    expect(primary.filter((line) => line.msg.startsWith('stopping'))).toEqual([
      expect.objectContaining({ signal, workers: 2 }),
    ]);
    expect(primary.at(-1)?.msg).toBe('stopped');
    const stored = JSON.parse((await runCliInProcess(['messages', 'list'], scratch.env)).stdout) as { message: string }[];
    expect(stored.map(({ message }) => message).sort()).toEqual(slow.map(({ id }) => id));
  });

  it.skipIf(againOnAnotherStore).each([
    ['a Ctrl-C', 'SIGINT'],
    ['a hang-up', 'SIGHUP'],
  ] as const)('takes %s at a terminal, which signals the primary and every worker, as one graceful stop', async (_name, signal) => {
    const { server } = await startWorkers();
    const workers = workerPids(server);
    for (const pid of [server.child.pid as number, ...workers]) process.kill(pid, signal);
    const finished = await server.finished;
    expect(finished.code).toBe(0);
    const lines = logLines({ ...server, output: finished });
    const stopped = lines.filter((line) => line.msg === 'stopped').map((line) => line.pid);
    expect(stopped.sort()).toEqual([...workers, server.child.pid].sort());
    expect(lines.filter((line) => line.msg.includes('second signal'))).toEqual([]);
  });
});

/** A GET on a connection of its own (no agent), as a separate client makes it: any worker may answer. */
function getOnNewConnection(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const getting = request(url, { agent: false, headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => {
        text += String(chunk);
      });
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    getting.on('error', reject);
    getting.setTimeout(NO_ANSWER_MS, () => getting.destroy(Object.assign(new Error('no answer'), { code: 'NO_ANSWER' })));
    getting.end();
  });
}

async function scrapeOnNewConnection(metricsUrl: string, id: string): Promise<Scrape> {
  const { status, text } = await getOnNewConnection(metricsUrl, { 'X-Request-Id': id });
  expect(status, text).toBe(200);
  return parsePrometheusText(text);
}

/** The counter and histogram samples of the service (store_orders_*), by name and labels. */
function serviceCounts(families: Scrape): Map<string, number> {
  const counts = new Map<string, number>();
  for (const sample of allSamples(families)) {
    if (!sample.name.startsWith('store_orders_') || sample.family.type === 'gauge') continue;
    counts.set(`${sample.name}${JSON.stringify(sample.labels)}`, sample.value);
  }
  return counts;
}

/** The series of `before` that are lower, or gone, in `after`: a counter that went back. */
function wentBack(before: Scrape, after: Scrape): string[] {
  const later = serviceCounts(after);
  return [...serviceCounts(before)].filter(([series, value]) => !((later.get(series) ?? -1) >= value)).map(([series]) => series);
}

const answeredTotal = (families: Scrape) =>
  (families.get('store_orders_http_requests_total')?.samples ?? []).reduce((total, { value }) => total + value, 0);

/** The metrics URL the listening line names. */
const metricsUrlOf = (server: ServerProcess) =>
  /metrics (http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(server.output.stdout)?.[1] as string;

const workerLabels = (families: Scrape) =>
  (families.get('process_resident_memory_bytes')?.samples ?? []).map(({ labels }) => labels.worker).sort();

/**
 * Scrapes until the primary gathers from both workers, read from the scrape itself: a worker is asked once
 * the primary hears that it listens, which may come a little after its own log line says so. Each scrape
 * passes through the primary, so a hundred of them come long after that message.
 */
async function untilBothGathered(metricsUrl: string, id: string, scrapes: Scrape[] = []): Promise<Scrape> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const families = await scrapeOnNewConnection(metricsUrl, `${id}-${attempt}`);
    scrapes.push(families);
    if (workerLabels(families).join() === '1,2') return families;
  }
  throw new Error('no scrape shows both workers’ process metrics (worker="1" and worker="2")');
}

describe.skipIf(againOnAnotherStore)('/metrics with WORKERS=2', () => {
  it.each([
    ['on the API port, counting the scrapes too', {}],
    ['on METRICS_PORT, whose scrapes are not counted', { METRICS_PORT: '0' }],
  ])('answers every scrape with the whole service, %s: ten in a row never go back and add up to the requests sent', async (_where, env) => {
    const { server, key } = await startWorkers(env);
    const metricsUrl = metricsUrlOf(server);
    const scrapesCount = metricsUrl.startsWith(`${server.baseUrl}/`);
    const auth = { Authorization: `Bearer ${key}` };
    const start = await untilBothGathered(metricsUrl, 'start');
    // What was answered before: the scrapes of the start, the last one included once it is answered.
    let answered = answeredTotal(start) + (scrapesCount ? 1 : 0);
    let previous = start;
    for (let round = 0; round < 10; round += 1) {
      // Each on a connection of its own: the primary hands them to the workers in turn.
      const statuses = [
        (await getOnNewConnection(`${server.baseUrl}/v1/store/orders`, { ...auth, 'X-Request-Id': `list-${round}` })).status,
        (await getOnNewConnection(`${server.baseUrl}/v1/store/orders`, { 'X-Request-Id': `refused-${round}` })).status,
      ];
      expect(statuses).toEqual([200, 401]);
      answered += statuses.length;
      const families = await scrapeOnNewConnection(metricsUrl, `scrape-${round}`);
      expect(answeredTotal(families), `scrape ${round}`).toBe(answered);
      if (scrapesCount) answered += 1;
      const requests = (status: string) =>
        valueOf(families, 'store_orders_http_requests_total', { api: 'v1', operation: 'listOrders', status });
      expect([requests('200'), requests('401')]).toEqual([round + 1, round + 1]);
      expect(wentBack(previous, families), `scrape ${round}`).toEqual([]);
      // The store's gauges are read once, not summed over the workers; the process metrics are each worker's.
      expect(valueOf(families, 'store_orders_message_queue_depth')).toBe(0);
      expect(workerLabels(families)).toEqual(['1', '2']);
      previous = families;
    }
    // Both workers answered requests, and so were summed.
    const lines = await untilLogged(server, (log) => answeredBy(log, 'list-9') !== undefined);
    const answering = new Set(
      Array.from({ length: 10 }, (_, round) => [answeredBy(lines, `list-${round}`), answeredBy(lines, `refused-${round}`)]).flat(),
    );
    expect([...answering].sort()).toEqual(workerPids(server).sort());
  });

  it('keeps every counter going up when a worker is killed with SIGKILL and replaced, scraped all along', async () => {
    const { server, key } = await startWorkers({ METRICS_PORT: '0' });
    const metricsUrl = metricsUrlOf(server);
    await untilBothGathered(metricsUrl, 'start');
    const auth = { Authorization: `Bearer ${key}` };
    const ids = Array.from({ length: 8 }, (_, i) => `before-${i}`);
    for (const id of ids) {
      expect((await getOnNewConnection(`${server.baseUrl}/v1/store/orders`, { ...auth, 'X-Request-Id': id })).status).toBe(200);
    }
    const beforeKill = await scrapeOnNewConnection(metricsUrl, 'before-kill');
    expect(answeredTotal(beforeKill)).toBe(8);
    // Both workers answered some: the victim's counts are at stake.
    const lines = await untilLogged(server, (log) => ids.every((id) => answeredBy(log, id) !== undefined));
    expect(new Set(ids.map((id) => answeredBy(lines, id))).size).toBe(2);
    const [victim, survivor] = workerPids(server);

    process.kill(victim as number, 'SIGKILL');
    await untilLogged(server, (log) => log.some((line) => line.msg === 'a worker exited: starting another'));
    // Scraped while the replacement starts, and until it is gathered too.
    const scrapes = [beforeKill];
    while (listening(logLines(server)).size < 3) scrapes.push(await scrapeOnNewConnection(metricsUrl, `starting-${scrapes.length}`));
    await untilBothGathered(metricsUrl, 'replaced', scrapes);
    for (let i = 1; i < scrapes.length; i += 1) {
      expect(wentBack(scrapes[i - 1] as Scrape, scrapes[i] as Scrape), `scrape ${i}`).toEqual([]);
      // Nothing was answered since: every request the victim answered is still counted, none twice.
      expect(answeredTotal(scrapes[i] as Scrape), `scrape ${i}`).toBe(8);
    }
    const replacement = workerPids(server).find((pid) => pid !== survivor);
    expect(replacement).toBeDefined();
    expect(replacement).not.toBe(victim);
  });
});

/** The server run to its end by the CLI's `serve`, with `args`; it is not expected to start. */
function serve(args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return runCli(['serve', ...args], { LOG_FORMAT: 'json', PORT: '0', ...env });
}

describe.skipIf(againOnAnotherStore)('WORKERS=2 that cannot start', () => {
  it('exits 1 with the single server’s own line when the database is missing', async () => {
    const env = { DATABASE_URL: `${scratch.folder}/missing.db` };
    const single = await serve([], env);
    expect(single.code).toBe(1);
    expect(single.stderr).toMatch(/^store-orders: cannot open database .*missing\.db does not exist[^\n]*\n$/);
    expect(await serve(['--workers', '2'], env)).toMatchObject({ code: 1, stderr: single.stderr });
    expect(await serve([], { ...env, WORKERS: '2' })).toMatchObject({ code: 1, stderr: single.stderr });
  });

  it('exits 1 with the single server’s own line when the port is taken', async () => {
    await runCliInProcess(['init'], scratch.env);
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    try {
      const env = { ...scratch.env, PORT: String((holder.address() as AddressInfo).port) };
      const single = await serve([], env);
      expect(single.code).toBe(1);
      expect(single.stderr).toMatch(/^store-orders: cannot listen on 127\.0\.0\.1:\d+: listen EADDRINUSE: [^\n]*\n$/);
      expect(await serve(['--workers', '2'], env)).toMatchObject({ code: 1, stderr: single.stderr });
    } finally {
      holder.close();
    }
  });

  // A SQLite file taken away from under the workers (test/postgres/ has PostgreSQL's own faults).
  it('gives up, stopping the others, when the replacements of a dead worker keep exiting at start', async () => {
    const { server } = await startWorkers();
    // Every replacement now finds no database, as a server started now would.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${scratch.env.DATABASE_URL}${suffix}`, { force: true });
    process.kill(workerPids(server)[0] as number, 'SIGKILL');
    const finished = await server.finished;
    expect(finished.code).toBe(1);
    expect(finished.stderr).toMatch(/does not exist; create it with `store-orders init`/);
    expect(finished.stderr).toContain(
      'store-orders: 5 workers in a row exited before they listened (the last with exit status 1); stopping\n',
    );
    const pauses = logLines({ ...server, output: finished }).filter((line) => line.pauseMs !== undefined);
    expect(pauses.map((line) => line.pauseMs)).toEqual([100, 200, 400, 800]);
  });
});

describe.skipIf(againOnAnotherStore)('--workers', () => {
  it.each([['0'], ['1025'], ['two']])('refuses --workers %s as a usage mistake naming the range', async (value) => {
    const result = await runCli(['serve', '--workers', value], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `store-orders: serve: --workers must be a whole number from 1 to 1024, got "${value}"; ` +
        'see store-orders serve --help\n',
    );
  });

  it('runs the workers through `store-orders serve --workers 2`', async () => {
    const server = await spawnServer(
      { ...scratch.env, LOG_FORMAT: 'json' },
      { entry: [CLI_ENTRY, 'serve', '--workers', '2'] },
    );
    scratch.servers.push(server);
    await untilLogged(server, (lines) => listening(lines).size === 2);
    expect(workerPids(server)).toHaveLength(2);
    server.child.kill('SIGINT');
    expect((await server.finished).code).toBe(0);
  });
});
