// Runs the server as a process: config → store → app → listen, and a graceful stop on SIGTERM or SIGINT.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { loadContract } from './contract/document.js';
import { SERVER_BUSY_TIMEOUT_MS } from './store/sqlite/open.js';
import { openSqliteStore } from './store/sqlite/sqliteStore.js';

export async function runServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return exitWith(`store-orders: bad configuration: ${error.message}`);
    throw error;
  }
  const contract = loadContract();
  let store: ReturnType<typeof openSqliteStore>;
  try {
    store = openSqliteStore(config.databasePath, {
      synchronous: config.synchronous,
      busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS,
      writeWaitMs: config.writeWaitMs,
      maxStreamedLists: config.maxStreamedLists,
      create: false,
    });
  } catch (error) {
    return exitWith(`store-orders: cannot open database ${config.databasePath}: ${(error as Error).message}`);
  }
  const app = await buildApp({
    contract,
    store,
    logLevel: config.logLevel,
    http: config.http,
    rateLimits: config.rateLimits,
    metrics: config.metrics,
    deprecatedCallsFlushMs: config.deprecatedCallsFlushMs,
  });
  const settings = store.settings();
  app.log.info({ database: config.databasePath, ...settings }, 'database opened');
  if (!settings.writable) app.log.warn('the database is read-only: reads are served, writes answer 503');

  const stop = stopOnSignal(app, store, config.stopTimeoutMs);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    store.close();
    return exitWith(
      `store-orders: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
    );
  }
  if (app.metricsServer) {
    try {
      const address = await app.metricsServer.listen({ port: config.metrics.port ?? 0, host: config.host });
      app.log.info(`metrics listening at ${address}`);
    } catch (error) {
      store.close();
      return exitWith(
        `store-orders: cannot listen for metrics on ${config.host}:${config.metrics.port}: ${(error as Error).message}`,
      );
    }
  }
}

/** A graceful stop: no new connections, the requests in flight finished, then the store closed. */
function stopOnSignal(app: FastifyInstance, store: { close(): void }, stopTimeoutMs: number) {
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
      .then(() => {
        store.close();
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
