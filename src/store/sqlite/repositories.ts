// The better-sqlite3 store: one connection shared by a repository per aggregate. Every statement is
// prepared once; every write transaction is IMMEDIATE. The repositories are synchronous but for writes
// that share a transaction (groupCommit.ts); compose.ts makes the async seam of them.
import type Database from 'better-sqlite3';
import type { OpenOptions, Repositories } from '../backend.js';
import { Accounts } from './accounts.js';
import { backupInto } from './backup.js';
import { Connection } from './connection.js';
import { DeprecatedCallLog } from './deprecatedCalls.js';
import { storeErrorFor } from './errors.js';
import { Messages } from './messages.js';
import { isWritable, openDatabase } from './open.js';
import type { SqliteSettings } from './settings.js';
import { Orders } from './orders.js';
import { Pets } from './pets.js';
import { EventDelivery } from './eventDelivery.js';
import { Webhooks } from './webhooks.js';


export function openRepositories(path: string, settings: SqliteSettings, options: OpenOptions): Repositories {
  const { create, onMigrated } = options;
  const db = openDatabase(path, { ...settings, create, ...(onMigrated && { onMigrated }) });
  const connection = new Connection(db, options.now, settings.writeWaitMs);
  const keys = new Accounts(connection);
  // Read from memory unless the file changed: within a write's transaction, no other process can change it.
  const accountOfKey = (digest: Buffer) => keys.findActiveKey(digest)?.accountId;
  const orders = new Orders(connection, (digest) => accountOfKey(digest) !== undefined, options);
  const ping = db.prepare<[], { ok: number }>(`SELECT 1 AS ok`);
  return {
    orders,
    pets: new Pets(connection),
    messages: new Messages(connection, accountOfKey),
    keys,
    webhooks: new Webhooks(connection),
    eventDelivery: new EventDelivery(connection),
    deprecatedCalls: new DeprecatedCallLog(db),
    storeErrorFor,
    isReady: () => ping.get()?.ok === 1,
    close: () => {
      orders.close();
      db.close();
    },
    describe: () => describe(db),
    backup: (file) => backupInto(db, file),
  };
}

/** The durability settings as SQLite reads them back, for the start-up log line. */
function describe(db: Database.Database) {
  const level = db.pragma('synchronous', { simple: true }) as number;
  return {
    backend: 'sqlite',
    file: db.name,
    journalMode: db.pragma('journal_mode', { simple: true }) as string,
    synchronous: ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? String(level),
    writable: isWritable(db.name),
  };
}
