// WORKERS=N (or `store-orders serve --workers N`): N server processes on one port, with node:cluster, so
// that one machine's every core serves. The primary opens neither the store nor the app: it starts the
// workers, each of them the single server of server.ts, replaces one that dies, and stops them all on
// SIGTERM or SIGINT. WORKERS=1 (the default) is that single server in this process, with no primary.
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.js';
import { loadConfigOrExit } from './exit.js';
import { type PrimaryLog, primaryLog } from './telemetry/primaryLog.js';
import { type StopMessage, WORKER_READY } from './workerMessages.js';

/** A worker that exits before it listens is started again after this, doubled for each such exit in a row. */
const FIRST_RETRY_MS = 100;
/** This many workers in a row that exit before they listen, with none listening in between, stop it all. */
const START_FAILURES_LIMIT = 5;
/** The primary's own deadline, beyond the workers' STOP_TIMEOUT_MS, for a worker that never exits. */
const STOP_GRACE_MS = 2_000;

/** Each worker runs the entry of `npm start`, which finds itself a worker and runs the server. */
const WORKER_ENTRY = fileURLToPath(new URL('./main.js', import.meta.url));

export async function runServers(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // Loaded only where it runs: the primary has no use for the app's modules.
  const server = () => import('./server.js');
  if (cluster.isWorker) return (await server()).runServer(env);
  const config = loadConfigOrExit(env);
  if (config.workers === 1) return (await server()).runServer(env);
  supervise(config, env);
}

const exitText = (code: number | null, signal: string | null) =>
  signal ? `signal ${signal}` : `exit status ${code}`;

function supervise(config: Config, env: NodeJS.ProcessEnv): void {
  const log: PrimaryLog = primaryLog(config);
  cluster.setupPrimary({ exec: WORKER_ENTRY, args: [] });
  const live = new Set<Worker>();
  const ready = new Set<Worker>();
  const retries = new Set<NodeJS.Timeout>();
  let serving = false;
  let startFailures = 0;
  let stopping: NodeJS.Signals | undefined;
  let failed = false;

  const start = () => {
    const worker = cluster.fork(env);
    live.add(worker);
    worker.on('message', (message: unknown) => {
      if (message !== WORKER_READY) return;
      ready.add(worker);
      startFailures = 0;
      if (stopping) tell(worker, stopping);
      else if (!serving) {
        // The first worker started alone: a database or port that is not there fails it alone, with
        // the one line a single server prints, rather than every worker at once.
        serving = true;
        for (let i = 1; i < config.workers; i++) start();
      }
    });
  };

  // A worker that listens stops on a message; one that does not yet may not have its handler, and has
  // no request in flight: a signal stops it.
  const tell = (worker: Worker, signal: NodeJS.Signals) => {
    if (!ready.has(worker)) worker.process.kill(signal);
    else if (worker.isConnected()) worker.send({ stop: signal } satisfies StopMessage);
  };

  const finish = () => {
    log.info('stopped');
    process.exit(failed ? 1 : 0);
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn('second signal: the workers exit now', { signal });
      for (const worker of live) tell(worker, signal);
      return;
    }
    stopping = signal;
    for (const retry of retries) clearTimeout(retry);
    log.info('stopping: each worker finishes its requests in flight', { signal, workers: live.size });
    setTimeout(() => {
      log.error('workers still running at the stop deadline: killing them', { workers: live.size });
      for (const worker of live) worker.process.kill('SIGKILL');
      process.exit(1);
    }, config.stopTimeoutMs + STOP_GRACE_MS).unref();
    for (const worker of live) tell(worker, signal);
    if (live.size === 0) finish();
  };

  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    const wasReady = ready.delete(worker);
    const pid = worker.process.pid;
    if (stopping) {
      // One that never served had nothing to finish; one that did and failed to stop cleanly is a failure.
      if (wasReady && code !== 0) failed = true;
      if (live.size === 0) finish();
      return;
    }
    if (!serving) {
      // The first worker's own line on stderr says why (a database or port it cannot use); a signal says nothing.
      if (signal !== null || code === 0) {
        const how = exitText(code, signal);
        process.stderr.write(`store-orders: the first worker stopped with ${how} before it listened\n`);
      }
      process.exit(code || 1);
    }
    if (wasReady) {
      log.warn('a worker exited: starting another', { worker: pid, exit: exitText(code, signal) });
      start();
      return;
    }
    startFailures += 1;
    if (startFailures >= START_FAILURES_LIMIT) {
      process.stderr.write(
        `store-orders: ${startFailures} workers in a row exited before they listened ` +
          `(the last with ${exitText(code, signal)}); stopping\n`,
      );
      failed = true;
      stop('SIGTERM');
      return;
    }
    const delay = FIRST_RETRY_MS * 2 ** (startFailures - 1);
    log.warn('a worker exited before it listened: starting another after a pause', {
      worker: pid,
      exit: exitText(code, signal),
      pauseMs: delay,
    });
    const retry = setTimeout(() => {
      retries.delete(retry);
      start();
    }, delay);
    retries.add(retry);
  });

  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  log.info('starting the workers', { workers: config.workers });
  start();
}
