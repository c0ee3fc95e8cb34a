// PostgreSQL's entry in the tests' table of backends (storeBackends.ts): a database of its own for each test,
// on the PostgreSQL that TEST_DATABASE_URL names (scripts/throwaway-postgres.sh starts one, and .ci/run always
// does), and what the tests read and write in it past the store. Without TEST_DATABASE_URL the tests that
// need it are skipped (and CI's machine line fails on any skipped test). The one module of test/, besides
// PostgreSQL's own tests (test/postgres/), that knows the backend's internals.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { openStore } from '../../../src/store/open.js';
import type { PostgresLocation } from '../../../src/store/postgres/backend.js';
import { MIGRATIONS } from '../../../src/store/postgres/migrations.js';
import { pageDialect } from '../../../src/store/postgres/orders.js';
import type { PastTheStore, ScratchSchema, Statement, TestBackend } from '../storeBackends.js';

/** Unset when empty: CI's lines without PostgreSQL pass an empty value. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

async function connected<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const asAdmin = <T>(work: (client: pg.Client) => Promise<T>) => connected(TEST_DATABASE_URL as string, work);

/** The URL of the database `name` on TEST_DATABASE_URL's server. */
function urlOf(name: string): string {
  const url = new URL(TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The migrated databases scratch databases are copied from, one per process (a test file's worker), named
 * for this machine and the process: `store_migrated_<machine>_<pid>_<random>`. A worker ends with a signal
 * that leaves it no time to drop its own, so each new one drops those of this machine's processes that
 * are gone.
 */
const MIGRATED_PREFIX = `store_migrated_${createHash('sha256').update(hostname()).digest('hex').slice(0, 8)}_`;
let migratedDatabase: Promise<string> | undefined;

function migrated(): Promise<string> {
  migratedDatabase ??= migrateNewDatabase().catch((error: unknown) => {
    migratedDatabase = undefined;
    throw error;
  });
  return migratedDatabase;
}

async function migrateNewDatabase(): Promise<string> {
  const name = `${MIGRATED_PREFIX}${process.pid}_${randomBytes(3).toString('hex')}`;
  await asAdmin(async (client) => {
    await dropThoseOfEndedProcesses(client);
    await client.query(`CREATE DATABASE ${name}`);
  });
  try {
    await (await openStore({ kind: 'postgres', url: urlOf(name) })).close();
    // A database is copied only while no one is connected to it: no one may connect from now on, and the
    // store's sessions, closed on the client's side, are waited for until their server processes are gone.
    await asAdmin(async (client) => {
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      const sessions = `SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1`;
      while ((await client.query<{ count: number }>(sessions, [name])).rows[0]?.count !== 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
  } catch (error) {
    await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    throw error;
  }
  return name;
}

async function dropThoseOfEndedProcesses(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
    [MIGRATED_PREFIX],
  );
  for (const { datname } of rows) {
    const pid = Number(datname.slice(MIGRATED_PREFIX.length).split('_')[0]);
    if (isRunning(pid)) continue;
    // Another worker may be dropping it too.
    await client.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => {});
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Gives a copied database an identity of its own, as migration 1 gave the one it was copied from. */
const NEW_IDENTITY = `UPDATE store_identity SET database_id = replace(gen_random_uuid()::text, '-', '')`;

/** A new database holding `schema`; `drop` removes it, ending whatever connections are still on it. */
async function create(_folder: string, schema: ScratchSchema): Promise<{ location: PostgresLocation; drop: () => Promise<void> }> {
  const name = `store_test_${randomBytes(6).toString('hex')}`;
  const template = schema === 'latest' ? ` TEMPLATE ${await migrated()}` : '';
  await asAdmin((client) => client.query(`CREATE DATABASE ${name}${template}`));
  const drop = () => asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {});
  if (schema === 'latest') {
    await connected(urlOf(name), (client) => client.query(NEW_IDENTITY)).catch(async (error: unknown) => {
      await drop();
      throw error;
    });
  }
  return { location: { kind: 'postgres', url: urlOf(name) }, drop };
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function pastTheStore({ url }: PostgresLocation): PastTheStore {
  const rows = <T extends object>(sql: string, values: readonly unknown[] = []) =>
    connected(url, async (client) => (await client.query<T>(sql, [...values])).rows);
  return {
    execute: (sql) => connected(url, async (client) => void (await client.query(sql))),
    rows,
    writeOlderSchema: (version) =>
      connected(url, async (client) => {
        await client.query(`CREATE TABLE schema_migrations (
          version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        for (const [index, migration] of MIGRATIONS.slice(0, version).entries()) {
          await client.query(migration);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [index + 1]);
        }
      }),
    stampSchemaVersion: (version) =>
      connected(url, async (client) => {
        await client.query('DELETE FROM schema_migrations WHERE version > $1', [version]);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1) ON CONFLICT DO NOTHING', [version]);
      }),
    async outline() {
      const lines = await rows<{ line: string }>(`
        SELECT 'schema versions ' || string_agg(version::text, ',' ORDER BY version) AS line FROM schema_migrations
        UNION ALL SELECT format('column %s.%s %s %s default %s', table_name, column_name, data_type, is_nullable, column_default)
          FROM information_schema.columns WHERE table_schema = 'public'
        UNION ALL SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
        UNION ALL SELECT format('constraint %s on %s: %s', conname, conrelid::regclass, pg_get_constraintdef(c.oid))
          FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
        UNION ALL SELECT format('trigger %s', pg_get_triggerdef(t.oid))
          FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace
          WHERE n.nspname = 'public' AND NOT t.tgisinternal
        UNION ALL SELECT format('function %s', pg_get_functiondef(p.oid))
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
        UNION ALL SELECT format('sequence %s at %s', sequencename, last_value) FROM pg_sequences WHERE schemaname = 'public'`);
      const tables = await rows<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`);
      const counts = await Promise.all(
        tables.map(async ({ name }) => {
          const [counted] = await rows<{ count: number }>(`SELECT count(*)::int AS count FROM "${name}"`);
          return `rows of ${name}: ${counted?.count}`;
        }),
      );
      return [...lines.map(({ line }) => line), ...counts].sort();
    },
    async queryPlan({ sql, values }: Statement) {
      // The statistics autovacuum would gather on its own, a little later.
      await rows('ANALYZE orders');
      const lines = (await rows<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).map((row) => row['QUERY PLAN']);
      // PostgreSQL may sort an arm it expects few rows of; what its scans read is counted by rowsReadByScan.
      return { reads: lines.filter((line) => / on orders\b/.test(line)), sorts: [] };
    },
    async rowsReadByScan({ sql, values }: Statement) {
      await rows('ANALYZE orders');
      const [plan] = await rows<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
      // Those its filter dropped included.
      const scans = (node: PlanNode): number[] => [
        ...(node['Relation Name'] === 'orders' ? [node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)] : []),
        ...(node.Plans ?? []).flatMap(scans),
      ];
      return scans(plan!['QUERY PLAN'][0].Plan);
    },
    async rowsSent() {
      const sent = await rows<{ sent: string }>(
        `SELECT tuples_processed AS sent FROM pg_stat_progress_copy WHERE datname = current_database()`,
      );
      if (sent.length !== 1) throw new Error(`expected one COPY in progress, found ${sent.length}`);
      return Number(sent[0]?.sent);
    },
  };
}

export const postgresTests: TestBackend<PostgresLocation> = {
  ...(TEST_DATABASE_URL === undefined && { unavailable: 'TEST_DATABASE_URL is not set' }),
  create,
  pastTheStore,
  migrations: { latest: MIGRATIONS.length, shipDateRange: 6 },
  pageDialect,
  // An index scan, or a bitmap heap scan of what a bitmap index scan found (never Seq Scan).
  indexRead: /(Index|Index Only|Bitmap Heap) Scan/,
  sharedQuotas: true,
};
