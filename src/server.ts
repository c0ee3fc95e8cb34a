// Runs the server as a process: config → store → app → listen, and a graceful stop on SIGTERM or SIGINT.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type Config, ConfigError, describeDatabase, loadConfig } from './config.js';
import { loadContract } from './contract/document.js';
import { SERVER_BUSY_TIMEOUT_MS } from './store/sqlite/open.js';
import { openStore } from './store/open.js';
import type { AdminStore } from './store/store.js';
import { chooseLogFormat, logDestination } from './telemetry/logOutput.js';
import { announceListening, warnIfMetricsOpen } from './telemetry/startup.js';

export async function runServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return exitWith(`store-orders: bad configuration: ${error.message}`);
    throw error;
  }
  const contract = loadContract();
  const store = await openConfiguredStore(config);
  const app = await buildApp({
    contract,
    store,
    logLevel: config.logLevel,
    logStream: logDestination(chooseLogFormat(config.logFormat, process.stdout.isTTY === true)),
    http: config.http,
    rateLimits: config.rateLimits,
    metrics: config.metrics,
    deprecatedCallsFlushMs: config.deprecatedCallsFlushMs,
    corsOrigins: config.corsOrigins,
  });
  const settings = store.describe();
  app.log.info({ database: describeDatabase(config.database), ...settings }, 'database opened');
  if (settings.writable === false) app.log.warn('the database is read-only: reads are served, writes answer 503');

  const stop = stopOnSignal(app, store, config.stopTimeoutMs);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await listen(app, store, config);
}

async function openConfiguredStore(config: Config): Promise<AdminStore> {
  try {
    return await openStore(config.database, {
      synchronous: config.synchronous,
      busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS,
      writeWaitMs: config.writeWaitMs,
      maxStreamedLists: config.maxStreamedLists,
      poolSize: config.poolSize,
      create: false,
    });
  } catch (error) {
    const database = describeDatabase(config.database);
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
    return exitWith(`store-orders: cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  let metricsOrigin = apiOrigin;
  if (app.metricsServer) {
    try {
      metricsOrigin = await app.metricsServer.listen({ port: metrics.port ?? 0, host });
    } catch (error) {
      await store.close();
      return exitWith(
        `store-orders: cannot listen for metrics on ${host}:${metrics.port}: ${(error as Error).message}`,
      );
    }
  }
  announceListening(app.log, apiOrigin, metricsOrigin);
  warnIfMetricsOpen(app.log, host, metrics, metricsOrigin);
}

/** A graceful stop: no new connections, the requests in flight finished, then the store closed. */
function stopOnSignal(app: FastifyInstance, store: { close(): Promise<void> }, stopTimeoutMs: number) {
  let stopping = false;
  return (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
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

function exitWith(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
