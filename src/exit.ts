// The server's refusals at start: one line on stderr, exit status 1. The primary of the workers
// (workers.ts) refuses a bad configuration with the same line as a single server does.
import { type Config, ConfigError, loadConfig } from './config.js';

export function exitWith(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The configuration, or exit 1 with one line naming what is wrong. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return exitWith(`store-orders: bad configuration: ${error.message}`);
    throw error;
  }
}
