// Storage failures, on files the test controls: a disk that fills up (a small tmpfs), a database the
// server may only read (another user), and a missing, unreadable or damaged file at start.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootSettings, prepareDatabase } from '../support/faults.js';
import { rawRequest } from '../support/http.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';

// Mounting a tmpfs and running the server as another user both need root, which CI has; .ci/run fails
// the build if this suite skipped anything.
const isRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };

let folder: string;
let server: ServerProcess | undefined;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-storage-'));
  // Another user must be able to reach the folders inside.
  chmodSync(folder, 0o711);
});
afterEach(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.finished;
  }
  server = undefined;
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function storedMessageIds(dbPath: string): string[] {
  const db = new Database(dbPath);
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return db
      .prepare<[], { id: string }>('SELECT id FROM messages')
      .all()
      .map((row) => row.id);
  } finally {
    db.close();
  }
}

describe.runIf(isRoot)('a full disk', () => {
  let disk: string;
  beforeAll(() => {
    disk = join(folder, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', disk]);
  });
  afterAll(() => execFileSync('umount', ['-l', disk]));

  it('answers writes with 503 storage_unavailable, keeps serving reads, damages nothing, and recovers on its own', async () => {
    const dbPath = join(disk, 'store.db');
    const { key } = await prepareDatabase(dbPath, 50);
    server = await spawnServer({ DATABASE_URL: dbPath }, { init: false });
    const auth = { Authorization: `Bearer ${key}` };
    const send = (message: string) =>
      rawRequest(`${(server as ServerProcess).baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ message }),
      });
    const acknowledged: string[] = [];
    for (let i = 0; i < 10; i++) acknowledged.push(((await send(`before ${i}`)).json as { id: string }).id);

    // Fill every byte that is left.
    const filler = join(disk, 'filler');
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(64 * 1024);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }

    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(503); i++) {
      const answer = await send(`while full ${i} ${'x'.repeat(9_000)}`);
      statuses.push(answer.status);
      if (answer.status === 202) acknowledged.push((answer.json as { id: string }).id);
      else {
        expect(answer.json).toEqual({
          code: 'storage_unavailable',
          message: 'The database cannot be written to right now; retry later',
          status: 503,
        });
        expect(answer.headers.get('retry-after')).toBe('5');
      }
    }
    expect(statuses).toContain(503);
    expect(new Set(statuses)).toEqual(new Set(statuses.filter((status) => status === 202 || status === 503)));
    const orders = await rawRequest(`${server.baseUrl}/v1/store/orders`, { headers: auth });
    expect(orders.status).toBe(200);
    expect(orders.json).toHaveLength(50);
    expect((await rawRequest(`${server.baseUrl}/readyz`)).status).toBe(200);

    rmSync(filler);
    const resumed = await send('after space returned');
    expect(resumed.status).toBe(202);
    acknowledged.push((resumed.json as { id: string }).id);

    server.child.kill('SIGTERM');
    expect((await server.finished).code).toBe(0);
    const stored = storedMessageIds(dbPath);
    for (const id of acknowledged) expect(stored).toContain(id);
  });
});

describe.runIf(isRoot)('a read-only database', () => {
  it('is served for reads while every write answers 503 storage_unavailable, and stays as it was', async () => {
    const shared = join(folder, 'read-only');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const dbPath = join(shared, 'store.db');
    const { key } = await prepareDatabase(dbPath, 5);
    chmodSync(dbPath, 0o444);
    server = await spawnServer({ DATABASE_URL: dbPath }, { init: false, spawnOptions: NOBODY });
    expect(bootSettings(server.output.stdout)).toEqual([expect.objectContaining({ writable: false })]);
    expect(server.output.stdout).toContain('the database is read-only');

    const auth = { Authorization: `Bearer ${key}` };
    const orders = await rawRequest(`${server.baseUrl}/v1/store/orders`, { headers: auth });
    expect(orders.status).toBe(200);
    expect(orders.json).toHaveLength(5);
    const sent = await rawRequest(`${server.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"message":"nowhere to go"}',
    });
    const cancelled = await rawRequest(`${server.baseUrl}/v1/store/orders/1`, {
      method: 'DELETE',
      headers: auth,
    });
    for (const answer of [sent, cancelled]) {
      expect(answer.status).toBe(503);
      expect(answer.json).toMatchObject({ code: 'storage_unavailable', status: 503 });
    }
    server.child.kill('SIGTERM');
    expect((await server.finished).code).toBe(0);
    chmodSync(dbPath, 0o644);
    expect(storedMessageIds(dbPath)).toEqual([]);
  });
});

describe('a database file that cannot be used at start', () => {
  it.runIf(isRoot)('unreadable: exits 1 with a clear message and never listens', async () => {
    const shared = join(folder, 'unreadable');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const dbPath = join(shared, 'store.db');
    await prepareDatabase(dbPath);
    chmodSync(dbPath, 0o000);
    const start = spawnServer({ DATABASE_URL: dbPath }, { init: false, spawnOptions: NOBODY });
    await expect(start).rejects.toThrow(/exited with 1/);
    await expect(start).rejects.toThrow(`cannot open database ${dbPath}: unable to open database file`);
    await expect(start).rejects.not.toThrow(/Server listening/);
  });

  it('not a database at all: exits 1 naming the file', async () => {
    const dbPath = join(folder, 'garbage.db');
    writeFileSync(dbPath, 'this is not SQLite, just text that happens to be here\n'.repeat(200));
    const start = spawnServer({ DATABASE_URL: dbPath }, { init: false });
    await expect(start).rejects.toThrow(`cannot open database ${dbPath}: file is not a database`);
    await expect(start).rejects.not.toThrow(/Server listening/);
  });

  it('cut short (a torn copy): exits 1 saying it is malformed, and leaves the file as it was', async () => {
    const dbPath = join(folder, 'torn.db');
    await prepareDatabase(dbPath, 20_000);
    const whole = readFileSync(dbPath);
    const torn = whole.subarray(0, Math.floor(whole.length / 2));
    writeFileSync(dbPath, torn);
    const start = spawnServer({ DATABASE_URL: dbPath }, { init: false });
    await expect(start).rejects.toThrow(`cannot open database ${dbPath}: database disk image is malformed`);
    expect(readFileSync(dbPath).equals(torn)).toBe(true);
  });

  it('missing: exits 1 pointing at `store-orders init`, and creates nothing', async () => {
    const dbPath = join(folder, 'nowhere', 'store.db');
    const start = spawnServer({ DATABASE_URL: dbPath }, { init: false });
    await expect(start).rejects.toThrow(`${dbPath} does not exist; create it with \`store-orders init\``);
    expect(() => readFileSync(dbPath)).toThrow(/ENOENT/);
  });
});
