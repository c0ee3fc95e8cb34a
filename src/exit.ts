// The server's refusals at start: one line on stderr, exit status 1. The primary of the workers
// (workers.ts) refuses a bad configuration with the same line as a single server does.
import { type Config, ConfigError, loadConfig } from './config.js';
import { type ClientEndpointSettings, type DeliverySettings, loadClientEndpointSettings, loadDeliverySettings } from './delivery/settings.js';
import { loadStoreSettings, type StoreSettings } from './store/backends.js';
import { loadTraceSettings, type TraceExportSettings } from './traceSettings.js';

/**
 * The server's settings, its store's, its delivery's, its clients' endpoints' and its spans' export, each read
 * by its own module.
 */
export type ServerConfig = Config & {
  store: StoreSettings;
  delivery: DeliverySettings;
  webhookEndpoints: ClientEndpointSettings;
  traces: TraceExportSettings | undefined;
};

export function exitWith(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The server's configuration; a ConfigError names what is wrong. */
export function loadServerConfig(env: NodeJS.ProcessEnv): ServerConfig {
  return {
    ...loadConfig(env),
    store: loadStoreSettings(env, 'server'),
    delivery: loadDeliverySettings(env),
    webhookEndpoints: loadClientEndpointSettings(env),
    traces: loadTraceSettings(env),
  };
}

/** The configuration, or exit 1 with one line naming what is wrong. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv): ServerConfig {
  try {
    return loadServerConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return exitWith(`store-orders: bad configuration: ${error.message}`);
    throw error;
  }
}
