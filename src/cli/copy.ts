// `store-orders copy --from URL --to URL`: everything in one database, into a new one of either backend.
import { backendSettings, describeDatabase, type DatabaseLocation, locateDatabase } from '../store/backends.js';
import { onlyOptions } from './args.js';
import type { Command } from './command.js';
import { CliError, databaseLocation, UsageError } from './io.js';

export const copy: Command = {
  usage: 'copy [--from URL] --to URL',
  summary: 'copy everything in the database into a new, empty one (SQLite or PostgreSQL)',
  description:
    'Copies everything in the database at --from (default: DATABASE_URL) into the database at --to,\n' +
    'each a SQLite file (a path or file: URL) or PostgreSQL (postgres://user:password@host:port/database),\n' +
    'either way: orders, pets, accounts, keys (their digests; revoked keys stay revoked), messages,\n' +
    'Idempotency-Keys and the calls to deprecated operations, with their ids. The source must have this\n' +
    "build's schema (run `store-orders init` on it first). It is read from one moment, so a server may go\n" +
    'on writing to it; writes after that moment are not copied, so stop the servers first for the final\n' +
    'move. The target must hold no data: a SQLite file is created if missing; a PostgreSQL database must\n' +
    'exist. Its schema is created in it, and all is written in one transaction: an error leaves it as it\n' +
    'was. Then start the servers with DATABASE_URL naming the target.',
  run: async (context, args) => {
    const { from, to } = onlyOptions(args, { from: 'string', to: 'string' });
    if (to === undefined) throw new UsageError('--to URL is required');
    const source = from === undefined ? databaseLocation(context) : located(from, '--from');
    const target = located(to, '--to');
    const names = `${describeDatabase(source)} to ${describeDatabase(target)}`;
    if (describeDatabase(source) === describeDatabase(target)) throw new UsageError('--from and --to name the same database');
    // Loaded only here: no other command needs the copy's code.
    const { copyDatabase } = await import('../store/copy.js');
    let counts;
    try {
      counts = await copyDatabase(source, target, backendSettings(context.env, 'command'));
    } catch (error) {
      throw new CliError(`cannot copy ${names}: ${(error as Error).message}`);
    }
    const summary = Object.entries(counts)
      .map(([table, count]) => `${count} ${table.replaceAll('_', ' ')}`)
      .join(', ');
    context.out(`copied ${names}: ${summary}`);
  },
};

function located(url: string, option: string): DatabaseLocation {
  try {
    return locateDatabase(url, option);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
