// `store-orders init`: the one command that creates a database. The server refuses a missing file, since
// serving an empty new database from a mistyped path would look like lost data; so do the other commands.
import { noArguments } from './args.js';
import type { Command } from './command.js';
import { databaseName, openStore } from './io.js';

export const init: Command = {
  usage: 'init',
  summary: 'create the database (and its folder) if missing; bring its schema up to date',
  description:
    'Creates the database file at DATABASE_URL (default data/store.db), and its folder, if missing, and\n' +
    'brings its schema up to date; prints its path. The only command that creates a database: the\n' +
    'server and every other command refuse a missing file. Safe to run again, also while the server runs.\n' +
    'For a postgres:// URL it brings that (existing) database\'s schema up to date, as every server does\n' +
    'when it starts.',
  run: async (context, args) => {
    noArguments(args);
    await (await openStore(context, { create: true })).close();
    context.out(`database ready: ${databaseName(context)}`);
  },
};
