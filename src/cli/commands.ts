// Every command of `store-orders`, in the order the help lists them.
import { ConfigError, parseWorkers } from '../config.js';
import { VERSION } from '../version.js';
import { accounts } from './accounts.js';
import { noArguments, onlyOptions } from './args.js';
import { backup } from './backup.js';
import type { Entry } from './command.js';
import { copy } from './copy.js';
import { deprecations } from './deprecations.js';
import { init } from './init.js';
import { UsageError } from './io.js';
import { keys } from './keys.js';
import { messages } from './messages.js';
import { orders } from './orders.js';
import { pets } from './pets.js';

export const COMMANDS: Record<string, Entry> = {
  init,
  serve: {
    usage: 'serve [--workers N]',
    summary: 'run the API server (as npm start does); the database must exist',
    description:
      'Runs the API server, configured by the environment as `npm start` is, until SIGTERM, SIGINT\n' +
      'or SIGHUP. The database must exist: create it with `store-orders init`.\n' +
      '--workers N runs N server processes on one port (default: WORKERS, else 1); one that dies is\n' +
      'replaced, and SIGTERM, SIGINT or SIGHUP stops them all gracefully.',
    run: async (context, args) => {
      const { workers } = onlyOptions(args, { workers: 'string' });
      try {
        if (workers !== undefined) parseWorkers('--workers', workers);
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.message);
        throw error;
      }
      // The server's modules are loaded only here: they would slow every other command's start.
      const { runServers } = await import('../workers.js');
      await runServers(workers === undefined ? context.env : { ...context.env, WORKERS: workers });
    },
  },
  accounts,
  keys,
  orders,
  pets,
  messages,
  deprecations,
  backup,
  copy,
  version: {
    usage: 'version',
    summary: 'print the version (also --version)',
    description: 'Prints the version of store-orders, which is also the version of the API contract.',
    run: (context, args) => {
      noArguments(args);
      context.out(VERSION);
    },
  },
};
