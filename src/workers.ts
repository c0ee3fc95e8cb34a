// WORKERS=N (or `store-orders serve --workers N`): N server processes on one port, with node:cluster, so
// that one machine's every core serves. The primary opens neither the store nor the app: it starts the
// workers, each of them the single server of server.ts, replaces one that dies, gathers their metrics for
// each scrape (telemetry/gathering.ts), keeps their request quotas' count where no database does
// (http/quotaCount.ts), and stops them all on SIGTERM, SIGINT or SIGHUP. WORKERS=1 (the
// default) is that single server in this process, with no primary.
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { deliveryAnnouncement } from './delivery/settings.js';
import { loadConfigOrExit, type ServerConfig } from './exit.js';
import { MemoryQuotaCount } from './http/quotaCount.js';
import { MetricsGathering } from './telemetry/gathering.js';
import { type PrimaryLog, primaryLog } from './telemetry/primaryLog.js';
import {
  isMessage,
  type QuotaLeased,
  type QuotaLeaseWanted,
  STOP_SIGNALS,
  type StopMessage,
  WORKER_READY,
} from './workerMessages.js';

/** A worker that exits before it listens is started again after this, doubled for each such exit in a row. */
const FIRST_RETRY_MS = 100;
/** This many workers in a row that exit before they listen, with none listening in between, stop it all. */
const START_FAILURES_LIMIT = 5;
/** The primary's own deadline, beyond the workers' STOP_TIMEOUT_MS, for a worker that never exits. */
export const STOP_GRACE_MS = 2_000;

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

function supervise(config: ServerConfig, env: NodeJS.ProcessEnv): void {
  // Structured clone rather than JSON: a metric's value may be NaN, which JSON would turn into null.
  cluster.setupPrimary({ exec: WORKER_ENTRY, args: [], serialization: 'advanced' });
  const supervisor = new Supervisor(config, env, primaryLog(config));
  cluster.on('exit', (worker, code, signal) => supervisor.exited(worker, code, signal));
  for (const name of STOP_SIGNALS) process.on(name, (signal) => supervisor.stop(signal));
  supervisor.log.info('starting the workers', { workers: config.workers });
  const { fields, message } = deliveryAnnouncement(config.delivery);
  supervisor.log.info(message, fields);
  supervisor.start(1);
}

class Supervisor {
  readonly #live = new Set<Worker>();
  readonly #ready = new Set<Worker>();
  readonly #retries = new Set<NodeJS.Timeout>();
  /** Each worker's place, 1 to WORKERS, which its replacement takes over. */
  readonly #slots = new Map<Worker, number>();
  readonly #metrics = new MetricsGathering();
  /** The request quotas' count of every worker, where no database keeps it (SQLite's case). */
  readonly #quotas = new MemoryQuotaCount();
  #serving = false;
  #startFailures = 0;
  #stopping: NodeJS.Signals | undefined;
  #failed = false;

  constructor(
    readonly config: ServerConfig,
    readonly env: NodeJS.ProcessEnv,
    readonly log: PrimaryLog,
  ) {}

  start(slot: number): void {
    const worker = cluster.fork(this.env);
    this.#live.add(worker);
    this.#slots.set(worker, slot);
    worker.on('message', (message: unknown) => {
      if (isMessage<QuotaLeaseWanted>(message, 'quotaLeaseWanted')) {
        const leased: QuotaLeased = { quotaLeased: message.quotaLeaseWanted, lease: this.#quotas.leaseNow(message.request) };
        if (worker.isConnected()) worker.send(leased);
        return;
      }
      if (message !== WORKER_READY) {
        this.#metrics.heard(worker, message);
        return;
      }
      this.#ready.add(worker);
      this.#metrics.joined(worker, slot);
      this.#startFailures = 0;
      if (this.#stopping) this.#tell(worker, this.#stopping);
      else if (!this.#serving) {
        // The first worker started alone: a database or port that is not there fails it alone, with
        // the one line a single server prints, rather than every worker at once.
        this.#serving = true;
        for (let other = 2; other <= this.config.workers; other++) this.start(other);
      }
    });
  }

  stop(signal: NodeJS.Signals): void {
    if (this.#stopping) {
      this.log.warn('second signal: the workers exit now', { signal });
      for (const worker of this.#live) {
        // A second message makes a worker exit at once; one that does not serve yet has nothing to finish.
        if (this.#ready.has(worker)) this.#tell(worker, signal);
        else worker.process.kill('SIGKILL');
      }
      return;
    }
    this.#stopping = signal;
    for (const retry of this.#retries) clearTimeout(retry);
    const workers = this.#live.size;
    this.log.info('stopping: each worker finishes its requests in flight', { signal, workers });
    setTimeout(() => {
      const left = this.#live.size;
      this.log.error('workers still running at the stop deadline: killing them', { workers: left });
      for (const worker of this.#live) worker.process.kill('SIGKILL');
      process.exit(1);
    }, this.config.stopTimeoutMs + STOP_GRACE_MS).unref();
    for (const worker of this.#live) this.#tell(worker, signal);
    if (this.#live.size === 0) this.#finish();
  }

  exited(worker: Worker, code: number | null, signal: string | null): void {
    this.#live.delete(worker);
    const wasReady = this.#ready.delete(worker);
    const slot = this.#slots.get(worker) ?? 1;
    this.#slots.delete(worker);
    this.#metrics.left(worker);
    if (this.#stopping) {
      // One that never served had nothing to finish; one that did and failed to stop cleanly is a failure.
      if (wasReady && code !== 0) this.#failed = true;
      if (this.#live.size === 0) this.#finish();
      return;
    }
    if (!this.#serving) {
      // The first worker's own line on stderr says why (a database or port it cannot use); a signal
      // says nothing.
      if (signal !== null || code === 0) {
        const how = exitText(code, signal);
        process.stderr.write(`store-orders: the first worker stopped with ${how} before it listened\n`);
      }
      process.exit(code || 1);
    }
    const exit = exitText(code, signal);
    if (wasReady) {
      this.log.warn('a worker exited: starting another', { worker: worker.process.pid, exit });
      this.start(slot);
    } else this.#retryStart(worker, exit, slot);
  }

  /** A worker that exited before it listened: another after a pause, or a stop after too many in a row. */
  #retryStart(worker: Worker, exit: string, slot: number): void {
    this.#startFailures += 1;
    if (this.#startFailures >= START_FAILURES_LIMIT) {
      process.stderr.write(
        `store-orders: ${this.#startFailures} workers in a row exited before they listened ` +
          `(the last with ${exit}); stopping\n`,
      );
      this.#failed = true;
      this.stop('SIGTERM');
      return;
    }
    const pauseMs = FIRST_RETRY_MS * 2 ** (this.#startFailures - 1);
    this.log.warn('a worker exited before it listened: starting another after a pause', {
      worker: worker.process.pid,
      exit,
      pauseMs,
    });
    const retry = setTimeout(() => {
      this.#retries.delete(retry);
      this.start(slot);
    }, pauseMs);
    this.#retries.add(retry);
  }

  // A worker stops on a message, which it tells apart from a signal of its own. One that has not said it
  // serves is told once it does (the message handler above), within the stop deadline: a signal from here
  // could be its second, a terminal having signalled it too, and a second signal exits at once (exit
  // status 1: the stop would fail).
  #tell(worker: Worker, signal: NodeJS.Signals): void {
    if (this.#ready.has(worker) && worker.isConnected()) worker.send({ stop: signal } satisfies StopMessage);
  }

  #finish(): void {
    this.log.info('stopped');
    process.exit(this.#failed ? 1 : 0);
  }
}
