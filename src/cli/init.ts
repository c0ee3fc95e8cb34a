// `store-orders init`: the one command that creates a database. The server refuses a missing file, since
// serving an empty new database from a mistyped path would look like lost data; so do the other commands.
import { onlyOptions } from './args.js';
import type { Command } from './command.js';
import { EXAMPLES_ACCOUNT, exampleRecords, examplesToWrite, writeExamples } from './examples.js';
import { type CliContext, databaseName, openStore } from './io.js';
import { issueKey, printKey } from './keys.js';
import type { AdminStore } from '../store/store.js';

export const init: Command = {
  usage: 'init [--examples]',
  summary: 'create the database (and its folder) if missing; bring its schema up to date',
  description:
    'Creates the database file at DATABASE_URL (default data/store.db), and its folder, if missing, and\n' +
    'brings its schema up to date; prints its path. The only command that creates a database: the\n' +
    'server and every other command refuse a missing file. Safe to run again, also while the server runs.\n' +
    'For a postgres:// URL it brings that (existing) database\'s schema up to date, as every server does\n' +
    'when it starts.\n' +
    `--examples, for a test server only: also writes every record the contracts' examples name (their\n` +
    `orders, pet and message, for the account "${EXAMPLES_ACCOUNT}") and prints a new key of that account\n` +
    'alone on standard output, the path on standard error. It refuses a database holding anything else;\n' +
    'run again on its own output, it writes nothing more and prints another key.',
  run: async (context, args) => {
    const { examples } = onlyOptions(args, { examples: 'boolean' });
    const store = await openStore(context, { create: true });
    try {
      if (examples) await initExamples(context, store);
      else context.out(`database ready: ${databaseName(context)}`);
    } finally {
      await store.close();
    }
  },
};

async function initExamples(context: CliContext, store: AdminStore): Promise<void> {
  const records = exampleRecords();
  const toWrite = await examplesToWrite(store, records);
  const issued = await issueKey(store, EXAMPLES_ACCOUNT);
  if (toWrite) await writeExamples(store, issued.caller, records);
  context.note(`database ready with the contracts' examples: ${databaseName(context)}`);
  printKey(context, issued);
}
