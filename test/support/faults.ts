// Shared pieces of the fault suite (test/chaos): a database made the way an operator makes it, another
// process that holds the write lock, and what the server says about its database when it starts.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open.js';
import { runCli } from './processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const ARTIFACTS = join(root, 'test-artifacts', 'faults');

/** `store-orders init`, a key from `store-orders keys create`, and `orders` pending orders. */
export async function prepareDatabase(dbPath: string, orders = 0): Promise<{ key: string }> {
  const env = { DATABASE_URL: dbPath };
  const made = await runCli(['init'], env);
  if (made.code !== 0) throw new Error(`store-orders init failed: ${made.stderr}`);
  const created = await runCli(['keys', 'create', '--account', 'acme'], env);
  if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  if (orders > 0) {
    const store = await openStore({ kind: 'sqlite', path: dbPath });
    await store.orders.importOrders(Array.from({ length: orders }, (_, i) => ({ petId: i + 1, quantity: 1 })));
    await store.pets.addPet('Rex');
    await store.close();
  }
  return { key: created.stdout.trim().split('\n').at(-1) as string };
}

export interface LockHolder {
  /** Commits; settles once the other process has let go of the lock and exited. */
  release(): Promise<void>;
}

/**
 * Another process takes the write lock (BEGIN IMMEDIATE) and keeps it until `release()`: a test decides
 * from what it has seen the server do, never from a wall-clock time, when the lock goes. Should the test end
 * without releasing it, the holder's standard input closes with this process, and it lets go then.
 */
export async function holdWriteLock(dbPath: string): Promise<LockHolder> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.resume();
    process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); });
  `;
  const child = spawn(process.execPath, ['-e', script, dbPath], { cwd: root, stdio: 'pipe' });
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += String(chunk);
  });
  const released = new Promise<void>((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`lock holder failed: ${errors}`)),
    ),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('locked')) resolve();
    });
    released.catch(reject);
  });
  return {
    release() {
      child.stdin.end();
      return released;
    },
  };
}

export interface BootSettings {
  journalMode: string;
  synchronous: string;
  writable: boolean;
}

/** The `database opened` line of each start in a server's output, in order. */
export function bootSettings(stdout: string): BootSettings[] {
  return stdout
    .split('\n')
    .filter((line) => line.includes('"database opened"'))
    .map((line) => JSON.parse(line) as BootSettings);
}

export function writeReport(name: string, report: unknown): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
}

/** Deterministic randomness for a run, from a printed seed, so a failing round can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}
