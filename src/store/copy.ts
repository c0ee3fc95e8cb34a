// Moving up: everything in a SQLite file, copied into a new PostgreSQL database. The source is read from
// one snapshot (one read transaction), so a server may go on writing meanwhile; the target is written in
// one transaction, all or nothing, in batches, so the memory taken does not grow with the data.
import Database from 'better-sqlite3';
import pg from 'pg';
import { openPostgresStore } from './postgres/postgresStore.js';

const BATCH_ROWS = 10_000;

interface Table {
  name: string;
  /** Columns, the same names in both schemas, with their PostgreSQL array types for unnest. */
  columns: Record<string, string>;
  /** The primary key, read in order batch by batch. */
  key: string[];
  /** The identity column, whose sequence must go past the copied ids. */
  identity?: string;
}

/** In the order the foreign keys need. */
const TABLES: readonly Table[] = [
  { name: 'accounts', columns: { id: 'bigint', name: 'text', created_at: 'text' }, key: ['id'], identity: 'id' },
  {
    name: 'api_keys',
    columns: { id: 'bigint', account_id: 'bigint', digest: 'bytea', display_prefix: 'text', created_at: 'text', revoked_at: 'text' },
    key: ['id'],
    identity: 'id',
  },
  { name: 'pets', columns: { id: 'bigint', name: 'text', created_at: 'text' }, key: ['id'], identity: 'id' },
  {
    name: 'orders',
    columns: {
      id: 'bigint',
      pet_id: 'bigint',
      quantity: 'integer',
      ship_date: 'text',
      complete: 'boolean',
      status: 'text',
      created_at: 'text',
      updated_at: 'text',
    },
    key: ['id'],
    identity: 'id',
  },
  {
    name: 'messages',
    columns: { seq: 'bigint', id: 'text', account_id: 'bigint', body: 'bytea', status: 'text', created_at: 'text' },
    key: ['seq'],
    identity: 'seq',
  },
  {
    name: 'idempotency_keys',
    columns: { account_id: 'bigint', key: 'text', fingerprint: 'bytea', status: 'integer', body: 'text', created_at: 'text' },
    key: ['account_id', 'key'],
  },
  {
    name: 'deprecated_calls',
    columns: { operation_id: 'text', account_id: 'bigint', first_call_at: 'text', last_call_at: 'text', call_count: 'bigint' },
    key: ['operation_id', 'account_id'],
  },
];

export type CopyCounts = Record<string, number>;

export class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError';
}

export async function copySqliteToPostgres(sqlitePath: string, postgresUrl: string): Promise<CopyCounts> {
  // Opening it as a store creates the schema, or checks it is this build's.
  await (await openPostgresStore(postgresUrl, { poolSize: 1 })).close();
  const source = new Database(sqlitePath, { readonly: true, fileMustExist: true });
  const target = new pg.Client({ connectionString: postgresUrl });
  await target.connect();
  try {
    source.exec('BEGIN');
    await target.query('BEGIN');
    await refuseUnlessEmpty(target);
    const counts: CopyCounts = {};
    for (const table of TABLES) counts[table.name] = await copyTable(source, target, table);
    await target.query('COMMIT');
    return counts;
  } catch (error) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (source.inTransaction) source.exec('COMMIT');
    source.close();
    await target.end();
  }
}

async function refuseUnlessEmpty(target: pg.Client): Promise<void> {
  for (const { name } of TABLES) {
    const { rows } = await target.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${name}) AS any`);
    if (rows[0]?.any) throw new TargetNotEmptyError(`the target database already holds ${name}; copy only into an empty one`);
  }
}

async function copyTable(source: Database.Database, target: pg.Client, table: Table): Promise<number> {
  const names = Object.keys(table.columns);
  const keys = table.key.join(', ');
  const first = source.prepare(`SELECT ${names.join(', ')} FROM ${table.name} ORDER BY ${keys} LIMIT ${BATCH_ROWS}`);
  const next = source.prepare(
    `SELECT ${names.join(', ')} FROM ${table.name} WHERE (${keys}) > (${table.key.map(() => '?').join(', ')})
     ORDER BY ${keys} LIMIT ${BATCH_ROWS}`,
  );
  const insert = `INSERT INTO ${table.name} (${names.join(', ')})
    SELECT * FROM unnest(${names.map((name, i) => `$${i + 1}::${table.columns[name]}[]`).join(', ')})`;
  let copied = 0;
  let rows = first.all() as Record<string, unknown>[];
  while (rows.length > 0) {
    const columns = names.map((name) => rows.map((row) => toPostgres(table.columns[name], row[name])));
    await target.query(insert, columns);
    copied += rows.length;
    const last = rows.at(-1) as Record<string, unknown>;
    rows = next.all(...table.key.map((column) => last[column])) as Record<string, unknown>[];
  }
  if (table.identity) {
    await target.query(
      `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.identity}'),
         coalesce(max(${table.identity}), 0) + 1, false) FROM ${table.name}`,
    );
  }
  return copied;
}

/** SQLite keeps booleans as 0 and 1, and a message's body as text, which PostgreSQL keeps as UTF-8 bytes. */
function toPostgres(type: string | undefined, value: unknown): unknown {
  if (type === 'boolean' && value !== null) return value === 1;
  if (type === 'bytea' && typeof value === 'string') return Buffer.from(value, 'utf8');
  return value;
}
