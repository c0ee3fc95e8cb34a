#!/usr/bin/env node
// `store-orders`: the operator's command line. Orders, pets and keys can only be made here.
import { runServer } from '../server.js';
import { accountsVerbs } from './accounts.js';
import { initDatabase } from './init.js';
import { deprecationsVerbs } from './deprecations.js';
import { type CliContext, CliError, usageError, type Verbs } from './io.js';
import { keysVerbs } from './keys.js';
import { messagesVerbs } from './messages.js';
import { ordersVerbs } from './orders.js';
import { petsVerbs } from './pets.js';

const NOUNS: Record<string, Verbs> = {
  accounts: accountsVerbs,
  keys: keysVerbs,
  orders: ordersVerbs,
  pets: petsVerbs,
  messages: messagesVerbs,
  deprecations: deprecationsVerbs,
};

const HELP = `Usage: store-orders <command>

  init                                    create the database file (and its folder) if missing, and bring its schema up to date
  serve                                   run the API server (same as npm start); the database must exist
  accounts create NAME                    create an account
  keys create --account NAME              create a key (and the account if missing); the key is the last line
  keys list                               list keys (never the keys themselves)
  keys revoke KEY_OR_ID                   revoke a key by its id or the key itself
  orders add --pet-id N --quantity N [--ship-date ISO] [--complete] [--status pending|shipped]
  orders import FILE                      import a JSON array of orders in one transaction
  orders ship ID                          mark a pending order shipped
  orders list                             all orders with their status, cancelled ones included
  pets add --name NAME                    create a pet
  messages list                           all stored messages
  deprecations                            each deprecated operation, its sunset, and the accounts still calling it

Every command uses DATABASE_URL (default data/store.db) and works while the server runs.`;

async function main(argv: string[]): Promise<number> {
  const context: CliContext = { env: process.env, out: (line) => process.stdout.write(`${line}\n`) };
  const [noun, verb, ...args] = argv;
  try {
    if (noun === 'serve') {
      await runServer(process.env);
      return -1;
    }
    if (noun === 'init') {
      if (verb !== undefined) throw usageError('init takes no arguments');
      initDatabase(context);
      return 0;
    }
    if (noun === undefined || ['help', '--help', '-h'].includes(noun)) {
      context.out(HELP);
      return 0;
    }
    const verbs = Object.hasOwn(NOUNS, noun) ? NOUNS[noun] : undefined;
    if (!verbs) throw usageError(`unknown command "${noun}"`);
    // A noun whose verbs include '' runs it when given no verb (`store-orders deprecations`).
    const run = Object.hasOwn(verbs, verb ?? '') ? verbs[verb ?? ''] : undefined;
    if (!run) throw usageError(`unknown ${noun} command "${verb ?? ''}"`);
    run(context, args);
    return 0;
  } catch (error) {
    const known = error instanceof CliError;
    const usage = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`store-orders: ${(error as Error).message}\n`);
    return known ? error.exitCode : usage ? 2 : 1;
  }
}

const exitCode = await main(process.argv.slice(2));
// `serve` keeps running until a signal stops it.
if (exitCode >= 0) process.exitCode = exitCode;
