// `store-orders copy --to postgres://…`: moving up from the SQLite file to PostgreSQL in one command.
import { type DatabaseLocation, describeDatabase, loadDatabase, parseDatabaseUrl } from '../config.js';
import { onlyOptions } from './args.js';
import type { Command } from './command.js';
import { CliError, UsageError } from './io.js';

export const copy: Command = {
  usage: 'copy --to POSTGRES_URL',
  summary: 'copy everything in the SQLite file into a new PostgreSQL database',
  description:
    'Copies everything in the SQLite database at DATABASE_URL into the PostgreSQL database at\n' +
    'POSTGRES_URL (postgres://user:password@host:port/database): orders, pets, accounts, keys (their\n' +
    'digests; revoked keys stay revoked), messages, Idempotency-Keys and the calls to deprecated\n' +
    'operations, with their ids. The file is read from one moment, so a server may go on writing to it;\n' +
    'writes after that moment are not copied, so stop the server first for the final move. The database\n' +
    'must exist and hold no data; the schema is created in it. All is written in one transaction: an\n' +
    'error leaves it as it was. Then start the servers with DATABASE_URL=POSTGRES_URL.',
  run: async (context, args) => {
    const { to } = onlyOptions(args, { to: 'string' });
    if (to === undefined) throw new UsageError('--to POSTGRES_URL is required');
    let target: DatabaseLocation;
    try {
      target = parseDatabaseUrl(to);
    } catch (error) {
      throw new UsageError((error as Error).message.replace('DATABASE_URL', '--to'));
    }
    if (target.kind !== 'postgres') throw new UsageError('--to must be a postgres:// or postgresql:// URL');
    const source = loadDatabase(context.env);
    if (source.kind !== 'sqlite') throw new CliError('DATABASE_URL must name the SQLite file to copy from');
    const names = `${describeDatabase(source)} to ${describeDatabase(target)}`;
    // Loaded only here: no other command needs the copy's code.
    const { copySqliteToPostgres } = await import('../store/copy.js');
    let counts;
    try {
      counts = await copySqliteToPostgres(source.path, target.url);
    } catch (error) {
      throw new CliError(`cannot copy ${names}: ${(error as Error).message}`);
    }
    const summary = Object.entries(counts)
      .map(([table, count]) => `${count} ${table.replaceAll('_', ' ')}`)
      .join(', ');
    context.out(`copied ${names}: ${summary}`);
  },
};
