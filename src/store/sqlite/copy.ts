// A SQLite file as the source of `store-orders copy` (read in one read transaction: one snapshot, while
// others write) or its target (created if missing, then written in one IMMEDIATE transaction). Its tables
// and columns are read from the file's own schema.
import Database from 'better-sqlite3';
import {
  BATCH_ROWS,
  checkSourceVersion,
  checkTargetTable,
  type CopySource,
  type CopyTarget,
  type Row,
  type TableShape,
} from '../copying.js';
import { MIGRATIONS } from './migrations.js';
import { openDatabase } from './open.js';
import type { SqliteSettings } from './settings.js';

/** The file's own identity and change count: a copy is a database of its own, with its own. */
const BOOKKEEPING = new Set(['order_list_version']);

interface Table extends TableShape {
  key: string[];
  /** Declared column types: INTEGER, TEXT, BLOB. */
  types: Record<string, string>;
}

export function exportFrom(path: string): Promise<CopySource> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    // Every read from here on is from the snapshot of the first.
    db.exec('BEGIN');
    checkSourceVersion(db.pragma('user_version', { simple: true }) as number, MIGRATIONS.length);
    const tables = tablesOf(db);
    return Promise.resolve({
      tables,
      rows: (table) => batches(db, tables.find(({ name }) => name === table.name) as Table),
      close: () => {
        db.close();
        return Promise.resolve();
      },
    });
  } catch (error) {
    db.close();
    throw error;
  }
}

export function importInto(path: string, { synchronous, busyTimeoutMs }: SqliteSettings): Promise<CopyTarget> {
  const db = openDatabase(path, { synchronous, busyTimeoutMs, create: true });
  let tables = new Map<string, Table>();
  const inserts = new Map<string, Database.Statement>();
  return Promise.resolve({
    begin: (wanted) => {
      db.exec('BEGIN IMMEDIATE');
      tables = new Map(tablesOf(db).map((table) => [table.name, table]));
      for (const table of wanted) {
        const holdsRows = tables.has(table.name) && db.prepare(`SELECT EXISTS (SELECT 1 FROM ${table.name})`).pluck().get() === 1;
        checkTargetTable(table, tables.get(table.name)?.columns, holdsRows);
      }
      return Promise.resolve();
    },
    write: ({ name, columns }, rows) => {
      const { types } = tables.get(name) as Table;
      let insert = inserts.get(name);
      if (!insert) {
        insert = db.prepare(`INSERT INTO ${name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
        inserts.set(name, insert);
      }
      for (const row of rows) insert.run(columns.map((column) => asSqlite(types[column], row[column])));
      return Promise.resolve();
    },
    commit: () => {
      db.exec(EVENTS_IN_ONE_ORDER);
      db.exec('COMMIT');
      return Promise.resolve();
    },
    close: () => {
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
      return Promise.resolve();
    },
  });
}

/**
 * The copied events renumbered in the order they are sent, (xact, seq), their xact made 0, and each
 * endpoint's position and replay moved with them: a PostgreSQL source's transaction ids mean nothing here,
 * where every new event is of xact 0 and sent in seq order after them. (postgres/copy.ts does the same.)
 */
const EVENTS_IN_ONE_ORDER = `
  CREATE TEMP TABLE event_order AS SELECT seq AS old, row_number() OVER (ORDER BY xact, seq) AS new FROM events;
  UPDATE webhook_endpoints SET
    sent_seq = coalesce((SELECT max(o.new) FROM event_order o JOIN events e ON e.seq = o.old
      WHERE (e.xact, e.seq) <= (webhook_endpoints.sent_xact, webhook_endpoints.sent_seq)), 0),
    sent_xact = 0;
  UPDATE webhook_replays SET event_seq = -(SELECT new FROM event_order WHERE old = event_seq);
  UPDATE events SET seq = -(SELECT new FROM event_order WHERE old = seq), xact = 0;
  UPDATE events SET seq = -seq;
  UPDATE webhook_replays SET event_seq = -event_seq;
  DROP TABLE event_order;
`;

/** The tables of data, as the file's schema describes them. */
function tablesOf(db: Database.Database): Table[] {
  const names = db
    .prepare<[], string>(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name`)
    .pluck()
    .all()
    .filter((name) => !BOOKKEEPING.has(name));
  return names.map((name) => {
    const columns = db.pragma(`table_info(${name})`) as { name: string; type: string; pk: number }[];
    const references = db.pragma(`foreign_key_list(${name})`) as { table: string }[];
    return {
      name,
      columns: columns.map((column) => column.name),
      key: columns.filter(({ pk }) => pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name),
      types: Object.fromEntries(columns.map((column) => [column.name, column.type.toUpperCase()])),
      references: [...new Set(references.map(({ table }) => table))],
    };
  });
}

/** The table's rows by primary key, a batch at a time. */
function* batches(db: Database.Database, { name, columns, key }: Table): Generator<Row[]> {
  const keys = key.join(', ');
  const read = `SELECT ${columns.join(', ')} FROM ${name}`;
  const first = db.prepare<[], Row>(`${read} ORDER BY ${keys} LIMIT ${BATCH_ROWS}`);
  const next = db.prepare<unknown[], Row>(
    `${read} WHERE (${keys}) > (${key.map(() => '?').join(', ')}) ORDER BY ${keys} LIMIT ${BATCH_ROWS}`,
  );
  let rows = first.all();
  while (rows.length > 0) {
    yield rows;
    const last = rows.at(-1) as Row;
    rows = next.all(...key.map((column) => last[column]));
  }
}

/** A value of any backend's as this file's column holds it: booleans as 0 and 1, text as text. */
function asSqlite(type: string | undefined, value: unknown): unknown {
  if (typeof value === 'boolean') return Number(value);
  if (type === 'TEXT' && Buffer.isBuffer(value)) return value.toString('utf8');
  return value;
}
