// `store-orders backup FILE`: a consistent copy of the database, taken while the server serves.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BackupOutcome } from '../store/store.js';
import { exactlyOne } from './args.js';
import type { Command } from './command.js';
import { type CliContext, CliError, databaseName, openStore } from './io.js';

export const backup: Command = {
  usage: 'backup FILE',
  summary: 'copy the database to a new FILE, also while the server runs',
  description:
    "Copies the database at DATABASE_URL into FILE with SQLite's online backup, also while the server\n" +
    'serves and writes: the copy is one consistent moment of the database, holding every write\n' +
    'acknowledged before the command started, complete in its one file (no -wal or -shm beside it).\n' +
    'FILE must not exist (a backup never overwrites a file) and its folder must.\n' +
    'To restore: stop the server, put the copy in place of the database file (and remove that file\'s\n' +
    '-wal and -shm), then start the server; the copy needs no init.',
  run: async (context, args) => {
    const file = exactlyOne(args, 'FILE');
    await backUp(context, file);
  },
};

async function backUp(context: CliContext, file: string): Promise<void> {
  const exists = () => new CliError(`${file} already exists; a backup never overwrites a file: name a new one`);
  if (existsSync(file)) throw exists();
  if (!existsSync(dirname(file))) throw new CliError(`cannot back up to ${file}: its folder does not exist`);
  const store = await openStore(context);
  let outcome: BackupOutcome;
  try {
    if (!store.backup) throw new Error('this command copies a SQLite file; back PostgreSQL up with pg_dump');
    outcome = await store.backup(file);
  } catch (error) {
    throw new CliError(`cannot back up to ${file}: ${(error as Error).message}`);
  } finally {
    await store.close();
  }
  if (outcome === 'exists') throw exists();
  context.out(`backed up ${databaseName(context)} to ${file}`);
}
