// What opening a database with an older schema tells: each migration applied, once, to the store's opener,
// to the server's log and to the CLI's notes; nothing when the schema is up to date. On both backends.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseUrl as url, type DatabaseLocation } from '../../src/store/backends.js';
import type { SchemaMigration } from '../../src/store/migrations.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { runCli, spawnServer } from '../support/processes.js';
import { type ScratchStore, type StoreBackend, STORE_BACKENDS } from '../support/storeBackends.js';

const MIGRATIONS = { sqlite: SQLITE_MIGRATIONS, postgres: POSTGRES_MIGRATIONS };

/** The schema an earlier release left: its first `version` migrations, applied as that release did. */
async function writeOlderSchema(location: DatabaseLocation, version: number): Promise<void> {
  if (location.kind === 'sqlite') {
    const db = new Database(location.path);
    for (const migration of SQLITE_MIGRATIONS.slice(0, version)) db.exec(migration);
    db.pragma(`user_version = ${version}`);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE schema_migrations (
      version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const [index, migration] of POSTGRES_MIGRATIONS.slice(0, version).entries()) {
      await client.query(migration);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [index + 1]);
    }
  } finally {
    await client.end();
  }
}

interface LogLine {
  msg: string;
  from?: number;
  to?: number;
  version?: number;
}

/** The server's log from its start to its stop, on `location`. */
async function serverLog(location: DatabaseLocation): Promise<LogLine[]> {
  const server = await spawnServer({ DATABASE_URL: url(location), LOG_FORMAT: 'json' }, { init: false });
  server.child.kill('SIGTERM');
  const { code, stdout } = await server.finished;
  expect(code).toBe(0);
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const aboutSchema = (lines: LogLine[]) => lines.filter((line) => line.msg.startsWith('schema '));

describe.each(STORE_BACKENDS.filter((backend) => backend.available))('on $name', (backend) => {
  const { name } = backend;
  const create = () => backend.create();
  const latest = MIGRATIONS[name].length;
  // As 1.3.0 left a SQLite file (3 of 5) and 1.4.0's predecessor a PostgreSQL database.
  const older = latest - 2;
  let scratch: ScratchStore;
  afterEach(() => scratch.drop());

  it('the store tells of each migration it applied to an older schema, in order, and of none the next time', async () => {
    scratch = await create();
    await writeOlderSchema(scratch.location, older);
    const told: SchemaMigration[] = [];
    await (await scratch.open({ onMigrated: (migration) => told.push(migration) })).close();
    expect(told).toEqual([
      { from: older, to: older + 1 },
      { from: older + 1, to: latest },
    ]);
    told.length = 0;
    await (await scratch.open({ onMigrated: (migration) => told.push(migration) })).close();
    expect(told).toEqual([]);
  });

  it('the store tells of a new schema once, as a whole', async () => {
    scratch = await create();
    const told: SchemaMigration[] = [];
    await (await scratch.open({ onMigrated: (migration) => told.push(migration), create: true })).close();
    expect(told).toEqual([{ from: 0, to: latest }]);
  });

  it('the server logs each migration it applied at start, before "database opened", and none at the next start', async () => {
    scratch = await create();
    await writeOlderSchema(scratch.location, older);
    const first = await serverLog(scratch.location);
    expect(aboutSchema(first)).toEqual([
      expect.objectContaining({ msg: 'schema migrated', from: older, to: older + 1, level: 30 }),
      expect.objectContaining({ msg: 'schema migrated', from: older + 1, to: latest, level: 30 }),
    ]);
    const opened = first.findIndex((line) => line.msg === 'database opened');
    expect(first.findLastIndex((line) => line.msg === 'schema migrated')).toBeLessThan(opened);
    expect(aboutSchema(await serverLog(scratch.location))).toEqual([]);
  });

  it('the CLI notes each migration any command applied on stderr, and none the next time', async () => {
    scratch = await create();
    await writeOlderSchema(scratch.location, older);
    const env = { DATABASE_URL: url(scratch.location) };
    const listed = await runCli(['keys', 'list'], env);
    expect(listed).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(listed.stderr).toBe(
      `Migrated the schema from version ${older} to ${older + 1}.\n` +
        `Migrated the schema from version ${older + 1} to ${latest}.\n`,
    );
    expect(await runCli(['init'], env)).toMatchObject({ code: 0, stderr: '' });
  });
});

const postgres = STORE_BACKENDS.find((backend) => backend.name === 'postgres');

describe.skipIf(!postgres?.available)('a new PostgreSQL database', () => {
  let scratch: ScratchStore;
  afterEach(() => scratch.drop());

  it('the first server to open it logs the schema it created, with its version', async () => {
    scratch = await (postgres as StoreBackend).create();
    const lines = await serverLog(scratch.location);
    expect(aboutSchema(lines)).toEqual([
      expect.objectContaining({ msg: 'schema created', version: POSTGRES_MIGRATIONS.length }),
    ]);
  });
});
