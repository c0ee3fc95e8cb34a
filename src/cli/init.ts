// `store-orders init`: the one command that creates a database. The server refuses a missing file, since
// serving an empty new database from a mistyped path would look like lost data.
import { loadDatabasePath } from '../config.js';
import { type CliContext, withStore } from './io.js';

export function initDatabase(context: CliContext): void {
  withStore(context, () => undefined);
  context.out(`database ready: ${loadDatabasePath(context.env)}`);
}
