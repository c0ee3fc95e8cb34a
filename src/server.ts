// Runs the server as a process: config → store → app → listen, and a graceful stop on SIGTERM, SIGINT or
// SIGHUP.
import cluster from 'node:cluster';
import { getSystemErrorMap } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { primaryQuotaCount } from './http/quotaCount.js';
import type { Config } from './config.js';
import { loadContracts } from './contract/document.js';
import { deliveryAnnouncement } from './delivery/settings.js';
import { exitWith, loadConfigOrExit, type ServerConfig } from './exit.js';
import { describeDatabase } from './store/backends.js';
import type { MigrationListener, SchemaMigration } from './store/migrations.js';
import { openStore } from './store/open.js';
import type { AdminStore } from './store/store.js';
import { chooseLogFormat, logDestination } from './telemetry/logOutput.js';
import { announceListening, warnIfMetricsOpen } from './telemetry/startup.js';
import { STOP_SIGNALS, type StopMessage, WORKER_READY } from './workerMessages.js';

export async function runServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfigOrExit(env);
  const contracts = loadContracts();
  // Logged once the app, and so the log, exists.
  const migrations: SchemaMigration[] = [];
  const store = await openConfiguredStore(config, (migration) => migrations.push(migration));
  const app = await buildApp({
    contracts,
    store,
    logLevel: config.logLevel,
    logStream: logDestination(chooseLogFormat(config.logFormat, process.stdout.isTTY === true)),
    http: config.http,
    rateLimits: config.rateLimits,
    metrics: config.metrics,
    deprecatedCallsFlushMs: config.deprecatedCallsFlushMs,
    corsOrigins: config.corsOrigins,
    delivery: config.delivery,
    webhookEndpoints: config.webhookEndpoints,
    ...(config.traces && { traces: { settings: config.traces, system: config.store.location.kind === 'postgres' ? 'postgresql' : 'sqlite' } }),
    metricsAcrossWorkers: cluster.isWorker,
    // Workers share their request quotas through the primary where the store keeps no count.
    ...(cluster.isWorker && !store.quotas && { quotaCount: primaryQuotaCount() }),
  });
  for (const { from, to } of migrations) {
    if (from === 0) app.log.info({ version: to }, 'schema created');
    else app.log.info({ from, to }, 'schema migrated');
  }
  const settings = store.describe();
  app.log.info({ database: describeDatabase(config.store.location), ...settings }, 'database opened');
  if (settings.writable === false) app.log.warn('the database is read-only: reads are served, writes answer 503');
  // Once for the service: the workers' primary says it for all of them.
  if (!cluster.isWorker) {
    const { fields, message } = deliveryAnnouncement(config.delivery);
    app.log.info(fields, message);
  }

  const stop = stopOnSignal(app, store, config.stopTimeoutMs);
  // Node passes a signal's listener its number as a second argument: `stop` must not take it for `from`.
  for (const name of STOP_SIGNALS) process.on(name, (signal) => stop(signal));
  await listen(app, store, config);
  if (cluster.isWorker) followPrimary(stop);
}

/**
 * A worker tells its primary it serves, and stops when the primary asks. The primary asks by message, not
 * by signal: a Ctrl-C at a terminal also signals every worker itself, and a second signal means "exit now".
 */
function followPrimary(stop: (signal: NodeJS.Signals, from: 'primary') => void) {
  process.on('message', (message: Partial<StopMessage>) => {
    if (typeof message.stop === 'string') stop(message.stop, 'primary');
  });
  process.send?.(WORKER_READY);
}

async function openConfiguredStore({ store }: ServerConfig, onMigrated: MigrationListener): Promise<AdminStore> {
  try {
    return await openStore(store.location, {
      settings: store.backends,
      ...(store.maxStreamedLists !== undefined && { maxStreamedLists: store.maxStreamedLists }),
      create: false,
      onMigrated,
    });
  } catch (error) {
    const database = describeDatabase(store.location);
    return exitWith(`store-orders: cannot open database ${database}: ${(error as Error).message}`);
  }
}

/** The API's listener, then the metrics' own if it has one; then where each is, and the warnings. */
async function listen(app: FastifyInstance, store: AdminStore, { host, port, metrics }: Config) {
  let apiOrigin: string;
  try {
    apiOrigin = await app.listen({ port, host });
  } catch (error) {
    await store.close();
    return exitWith(`store-orders: cannot listen on ${host}:${port}: ${listenFailure(error)}`);
  }
  let metricsOrigin = apiOrigin;
  if (app.metricsServer) {
    try {
      metricsOrigin = await app.metricsServer.listen({ port: metrics.port ?? 0, host });
    } catch (error) {
      await store.close();
      return exitWith(
        `store-orders: cannot listen for metrics on ${host}:${metrics.port}: ${listenFailure(error)}`,
      );
    }
  }
  announceListening(app.log, apiOrigin, metricsOrigin);
  warnIfMetricsOpen(app.log, host, metrics, metricsOrigin);
}

/**
 * Why a listen failed, in the single server's words (`listen EADDRINUSE: address already in use
 * 127.0.0.1:3000`) also in a worker, whose primary binds the port and words it `bind EADDRINUSE 127.0.0.1:3000`.
 */
function listenFailure(error: unknown): string {
  const { message, errno, address, port } = error as NodeJS.ErrnoException & { address?: string; port?: number };
  const [code, text] = (typeof errno === 'number' && getSystemErrorMap().get(errno)) || [];
  if (!cluster.isWorker || !code || !text || address === undefined) return message;
  return `listen ${code}: ${text} ${address}:${port}`;
}

/** A graceful stop: no new connections, the requests in flight finished, then the store closed. */
function stopOnSignal(app: FastifyInstance, store: { close(): Promise<void> }, stopTimeoutMs: number) {
  let stopping = false;
  // A worker may be asked twice for the same stop, by a signal of its own and by its primary.
  const asked = { signal: 0, primary: 0 };
  return (signal: NodeJS.Signals, from: keyof typeof asked = 'signal') => {
    asked[from] += 1;
    if (asked[from] > 1) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: no new connections, finishing requests in flight');
    setTimeout(() => {
      app.log.error('requests still in flight at the stop deadline: exiting now');
      process.exit(1);
    }, stopTimeoutMs).unref();
    app
      .close()
      .then(() => store.close())
      .then(() => {
        app.log.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'stop failed');
        process.exit(1);
      });
  };
}
