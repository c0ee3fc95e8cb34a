// What opening a database with an older schema tells: each migration applied, once, to the store's opener,
// to the server's log and to the CLI's notes; nothing when the schema is up to date. On every backend.
import { afterEach, describe, expect, it } from 'vitest';
import type { SchemaMigration } from '../../src/store/migrations.js';
import { runCliInProcess } from '../support/commandLine.js';
import { spawnServer } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS, storeBackend } from '../support/storeBackends.js';

interface LogLine {
  msg: string;
  from?: number;
  to?: number;
  version?: number;
}

/** The server's log from its start to its stop, on the database `url` names. */
async function serverLog(url: string): Promise<LogLine[]> {
  const server = await spawnServer({ DATABASE_URL: url, LOG_FORMAT: 'json' }, { init: false });
  server.child.kill('SIGTERM');
  const { code, stdout } = await server.finished;
  expect(code).toBe(0);
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const aboutSchema = (lines: LogLine[]) => lines.filter((line) => line.msg.startsWith('schema '));

describe.each(STORE_BACKENDS.filter((backend) => backend.available))('on $kind', (backend) => {
  // Empty: the store, not the test's scratch database, makes or migrates its schema.
  const create = () => scratchDatabase(backend.kind, { schema: 'empty' });
  const { latest } = backend.migrations;
  // As an earlier release left the database, two migrations behind.
  const older = latest - 2;
  let scratch: ScratchDatabase;
  afterEach(() => scratch.drop());

  it('the store tells of each migration it applied to an older schema, in order, and of none the next time', async () => {
    scratch = await create();
    await scratch.writeOlderSchema(older);
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
    await scratch.writeOlderSchema(older);
    const first = await serverLog(scratch.url);
    expect(aboutSchema(first)).toEqual([
      expect.objectContaining({ msg: 'schema migrated', from: older, to: older + 1, level: 30 }),
      expect.objectContaining({ msg: 'schema migrated', from: older + 1, to: latest, level: 30 }),
    ]);
    const opened = first.findIndex((line) => line.msg === 'database opened');
    expect(first.findLastIndex((line) => line.msg === 'schema migrated')).toBeLessThan(opened);
    expect(aboutSchema(await serverLog(scratch.url))).toEqual([]);
  });

  it('the CLI notes each migration any command applied on stderr, and none the next time', async () => {
    scratch = await create();
    await scratch.writeOlderSchema(older);
    const env = { DATABASE_URL: scratch.url };
    const listed = await runCliInProcess(['keys', 'list'], env);
    expect(listed).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(listed.stderr).toBe(
      `Migrated the schema from version ${older} to ${older + 1}.\n` +
        `Migrated the schema from version ${older + 1} to ${latest}.\n`,
    );
    expect(await runCliInProcess(['init'], env)).toMatchObject({ code: 0, stderr: '' });
  });
});

const postgres = storeBackend('postgres');

describe.skipIf(!postgres.available)('a new PostgreSQL database', () => {
  let scratch: ScratchDatabase<'postgres'>;
  afterEach(() => scratch.drop());

  it('the first server to open it logs the schema it created, with its version', async () => {
    scratch = await scratchDatabase('postgres', { schema: 'empty' });
    const lines = await serverLog(scratch.url);
    expect(aboutSchema(lines)).toEqual([
      expect.objectContaining({ msg: 'schema created', version: postgres.migrations.latest }),
    ]);
  });
});
