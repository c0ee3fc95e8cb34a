// A PostgreSQL database as the source of `store-orders copy` (read in one REPEATABLE READ transaction: one
// snapshot, while servers write) or its target (its schema created or brought up to date, as a server
// does, then written in one transaction). Its tables, columns and types are read from its own catalog.
import pg from 'pg';
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
import { connectionConfig, migrateOnce, type PostgresSettings } from './repositories.js';

/** The database's own identity, change count and schema version: a copy is a database of its own. */
const BOOKKEEPING = [
  'store_identity',
  'order_changes_base',
  'order_changes',
  'schema_migrations',
  'quota_windows',
  'quota_processes',
];

interface Table extends TableShape {
  key: string[];
  /** Each column's type, as PostgreSQL writes it: bigint, text, bytea, … */
  types: Record<string, string>;
  /** The columns that are identities, whose sequence a copy sets past the copied values. */
  identities: string[];
}

/** The tables of data of the connection's schema, from the catalog. */
const TABLES = `
  SELECT c.relname::text AS name,
    ARRAY(SELECT a.attname::text FROM pg_attribute a
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum) AS columns,
    ARRAY(SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum) AS types,
    ARRAY(SELECT a.attname::text FROM pg_attribute a
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND a.attidentity <> '' ORDER BY a.attnum) AS identities,
    ARRAY(SELECT a.attname::text FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k (attnum, n), pg_attribute a
          WHERE i.indrelid = c.oid AND i.indisprimary AND a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.n) AS key,
    ARRAY(SELECT DISTINCT f.confrelid::regclass::text FROM pg_constraint f
          WHERE f.conrelid = c.oid AND f.contype = 'f') AS references
  FROM pg_class c
  WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname <> ALL ($1::text[])
  ORDER BY c.relname`;

async function tablesOf(client: pg.Client): Promise<Table[]> {
  const { rows } = await client.query<Omit<Table, 'types'> & { types: string[] }>(TABLES, [BOOKKEEPING]);
  return rows.map((row) => ({
    ...row,
    types: Object.fromEntries(row.columns.map((column, i) => [column, row.types[i] as string])),
  }));
}

async function connect(url: string, { connectionWaitMs }: PostgresSettings): Promise<pg.Client> {
  const client = new pg.Client(connectionConfig(url, connectionWaitMs));
  // A connection PostgreSQL ends while idle is the next statement's error, not a crash.
  client.on('error', () => {});
  await client.connect();
  return client;
}

export async function exportFrom(url: string, settings: PostgresSettings): Promise<CopySource> {
  const client = await connect(url, settings);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN 0
         ELSE (SELECT coalesce(max(version), 0) FROM schema_migrations) END AS version`,
    );
    checkSourceVersion(rows[0]?.version ?? 0, MIGRATIONS.length);
    const tables = await tablesOf(client);
    return {
      tables,
      rows: (table) => batches(client, tables.find(({ name }) => name === table.name) as Table),
      close: () => client.end(),
    };
  } catch (error) {
    await client.end();
    throw error;
  }
}

/** The table's rows by primary key, a batch at a time. */
async function* batches(client: pg.Client, { name, columns, key }: Table): AsyncGenerator<Row[]> {
  const keys = key.join(', ');
  const read = `SELECT ${columns.join(', ')} FROM ${name}`;
  let rows = (await client.query<Row>(`${read} ORDER BY ${keys} LIMIT ${BATCH_ROWS}`)).rows;
  while (rows.length > 0) {
    yield rows;
    const last = rows.at(-1) as Row;
    const after = `WHERE (${keys}) > (${key.map((_, i) => `$${i + 1}`).join(', ')})`;
    rows = (await client.query<Row>(`${read} ${after} ORDER BY ${keys} LIMIT ${BATCH_ROWS}`, key.map((column) => last[column]))).rows;
  }
}

export async function importInto(url: string, settings: PostgresSettings): Promise<CopyTarget> {
  await migrateOnce(connectionConfig(url, settings.connectionWaitMs), undefined);
  const client = await connect(url, settings);
  let tables = new Map<string, Table>();
  let open = false;
  return {
    begin: async (wanted) => {
      await client.query('BEGIN');
      open = true;
      tables = new Map((await tablesOf(client)).map((table) => [table.name, table]));
      for (const table of wanted) {
        const found = tables.get(table.name);
        const holdsRows = found && (await client.query(`SELECT 1 FROM ${table.name} LIMIT 1`)).rows.length > 0;
        checkTargetTable(table, found?.columns, holdsRows === true);
      }
    },
    write: async ({ name, columns }, rows) => {
      const { types } = tables.get(name) as Table;
      const arrays = columns.map((column, i) => `$${i + 1}::${types[column]}[]`);
      await client.query(
        `INSERT INTO ${name} (${columns.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`,
        columns.map((column) => rows.map((row) => asPostgres(types[column], row[column]))),
      );
    },
    commit: async () => {
      await client.query(EVENTS_IN_ONE_ORDER);
      for (const { name, identities } of tables.values()) {
        for (const column of identities) {
          await client.query(
            `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(${column}), 0) + 1, false) FROM ${name}`,
            [name, column],
          );
        }
      }
      await client.query('COMMIT');
      open = false;
    },
    close: async () => {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    },
  };
}

/**
 * The copied events renumbered in the order they are sent, (xact, seq), their xact made 0, and each
 * endpoint's position and replay moved with them: the source's transaction ids (another cluster's, or
 * SQLite's 0) mean nothing to this database's, which must all come after them. As sqlite/copy.ts does.
 */
const EVENTS_IN_ONE_ORDER = `
  CREATE TEMP TABLE event_order ON COMMIT DROP AS
    SELECT seq AS old, row_number() OVER (ORDER BY xact, seq) AS new FROM events;
  UPDATE webhook_endpoints w SET
    sent_seq = coalesce((SELECT max(o.new) FROM event_order o JOIN events e ON e.seq = o.old
      WHERE (e.xact, e.seq) <= (w.sent_xact, w.sent_seq)), 0),
    sent_xact = '0';
  UPDATE webhook_replays r SET event_seq = -o.new FROM event_order o WHERE o.old = r.event_seq;
  UPDATE events e SET seq = -o.new, xact = '0' FROM event_order o WHERE o.old = e.seq;
  UPDATE events SET seq = -seq;
  UPDATE webhook_replays SET event_seq = -event_seq;
`;

/** A value of any backend's as this database's column holds it: 0 and 1 as booleans, text as UTF-8 bytes. */
function asPostgres(type: string | undefined, value: unknown): unknown {
  if (type === 'boolean' && typeof value === 'number') return value === 1;
  if (type === 'bytea' && typeof value === 'string') return Buffer.from(value, 'utf8');
  return value;
}
