// The group commit on its own, on a real SQLite file: what a caller of `run` relies on. A second
// connection to the same file plays the rest of the world: it sees only what is committed, and can hold
// the write lock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../src/store/sqlite/groupCommit.js';

let folder: string;
let db: Database.Database;
/** Another connection to the same file. */
let other: Database.Database;
let afterCommit: ReturnType<typeof vi.fn<() => void>>;
let groupCommit: GroupCommit;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-group-commit-'));
  const path = join(folder, 'writes.db');
  // No busy timeout: a lock held elsewhere fails at once, and the group commit's own waiting is what runs.
  db = new Database(path, { timeout: 0 });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`
    CREATE TABLE writes (id INTEGER PRIMARY KEY, caller TEXT NOT NULL);
    CREATE TABLE parents (id INTEGER PRIMARY KEY);
    CREATE TABLE children (parent_id INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
  `);
  other = new Database(path, { timeout: 0 });
  afterCommit = vi.fn<() => void>();
  groupCommit = new GroupCommit(db, afterCommit, 5_000);
});

afterEach(() => {
  vi.useRealTimers();
  other.close();
  if (db.open) db.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Callers, as the other connection sees them committed. */
function committed(): string[] {
  return other.prepare<[], string>('SELECT caller FROM writes ORDER BY id').pluck().all();
}

function write(caller: string): () => string {
  return () => {
    db.prepare('INSERT INTO writes (caller) VALUES (?)').run(caller);
    return caller;
  };
}

/** Follows a promise without awaiting it, so that a test can look at whether it has settled yet. */
function follow<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

/** One turn of the event loop: a write queued before this call has been tried once after it. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit.run', () => {
  it('runs nothing at once: the writes of one turn run together once the turn is over', async () => {
    const work = vi.fn(write('a'));
    const written = groupCommit.run(work);
    expect(work).not.toHaveBeenCalled();
    await written;
    expect(work).toHaveBeenCalledTimes(1);
    expect(committed()).toEqual(['a']);
  });

  it('commits the writes of one turn in one transaction, which another connection sees whole', async () => {
    const seenMeanwhile: string[][] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((caller) =>
        groupCommit.run(() => {
          seenMeanwhile.push(committed());
          return write(caller)();
        }),
      ),
    );
    expect(results).toEqual(['a', 'b', 'c']);
    // Nothing was committed between the first write and the last.
    expect(seenMeanwhile).toEqual([[], [], []]);
    expect(committed()).toEqual(['a', 'b', 'c']);
    // One batch, one commit: no second, empty one follows in a later turn.
    await nextTurn();
    expect(afterCommit).toHaveBeenCalledTimes(1);
  });

  it('takes into the batch a write asked for later in the same turn, after an await', async () => {
    const a = groupCommit.run(write('a'));
    await Promise.resolve();
    const b = groupCommit.run(write('b'));
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(afterCommit).toHaveBeenCalledTimes(1);
  });

  it('runs the writes in the order they were asked for', async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4, 5].map((n) => groupCommit.run(() => order.push(n))));
    expect(order).toEqual([1, 2, 3, 4, 5]);
  });

  it('gives each caller the value its own work returned', async () => {
    const a = groupCommit.run(() => ({ id: 1 }));
    const b = groupCommit.run(() => 'two');
    const c = groupCommit.run(() => undefined);
    expect(await a).toEqual({ id: 1 });
    expect(await b).toBe('two');
    expect(await c).toBeUndefined();
  });

  it('settles a caller only once the whole batch is committed and afterCommit has run', async () => {
    const seenAtAfterCommit: string[][] = [];
    afterCommit.mockImplementation(() => seenAtAfterCommit.push(committed()));
    const first = groupCommit.run(write('a'));
    void groupCommit.run(write('b'));
    const atFirstSettled = first.then(() => ({ seen: committed(), calls: afterCommit.mock.calls.length }));
    expect(await atFirstSettled).toEqual({ seen: ['a', 'b'], calls: 1 });
    expect(seenAtAfterCommit).toEqual([['a', 'b']]);
  });

  it('rolls back a write that throws, alone: its caller gets its error, the others commit', async () => {
    const failure = new Error('the order was shipped meanwhile');
    const a = follow(groupCommit.run(write('a')));
    const b = follow(
      groupCommit.run(() => {
        write('b')();
        throw failure;
      }),
    );
    const c = groupCommit.run(write('c'));
    expect(await c).toBe('c');
    expect(a).toEqual({ settled: true, value: 'a' });
    expect(b).toEqual({ settled: true, error: failure });
    expect(committed()).toEqual(['a', 'c']);
    expect(afterCommit).toHaveBeenCalledTimes(1);
  });

  it('commits the writes of a later turn in a transaction of their own', async () => {
    await groupCommit.run(write('a'));
    expect(afterCommit).toHaveBeenCalledTimes(1);
    await groupCommit.run(write('b'));
    expect(afterCommit).toHaveBeenCalledTimes(2);
    expect(committed()).toEqual(['a', 'b']);
  });

  it('fails every caller of a batch that cannot commit, writes none of it, and recovers', async () => {
    // A deferred foreign key is checked at COMMIT, after every write of the batch has succeeded.
    const a = groupCommit.run(write('a'));
    const orphan = groupCommit.run(() => db.prepare('INSERT INTO children (parent_id) VALUES (42)').run());
    await expect(a).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await expect(orphan).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(committed()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    expect(await groupCommit.run(write('b'))).toBe('b');
    expect(committed()).toEqual(['b']);
  });

  it('rejects, and leaves no caller hanging, when the database is closed before the turn ends', async () => {
    const work = vi.fn(write('a'));
    const written = groupCommit.run(work);
    db.close();
    await expect(written).rejects.toThrow(/not open/);
    expect(work).not.toHaveBeenCalled();
  });
});

describe('GroupCommit.run while another connection holds the write lock', () => {
  beforeEach(() => {
    // setImmediate stays real: a turn of the event loop is still a turn.
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    other.exec('BEGIN IMMEDIATE');
  });

  it('waits between turns, with reads going on, and commits once the lock is released', async () => {
    const work = vi.fn(write('a'));
    const written = follow(groupCommit.run(work));
    await nextTurn();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(written.settled).toBe(false);
    expect(work).not.toHaveBeenCalled();
    expect(db.prepare('SELECT count(*) FROM writes').pluck().get()).toBe(0);
    other.exec('COMMIT');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(written).toEqual({ settled: true, value: 'a' });
    expect(committed()).toEqual(['a']);
  });

  it('keeps the order of the writes that wait, those that arrive meanwhile joining after them', async () => {
    const a = groupCommit.run(write('a'));
    await nextTurn();
    await vi.advanceTimersByTimeAsync(100);
    const b = groupCommit.run(write('b'));
    other.exec('COMMIT');
    await vi.advanceTimersByTimeAsync(100);
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(committed()).toEqual(['a', 'b']);
  });

  it('fails a write with SQLITE_BUSY once it has waited writeWaitMs; a later one waits on', async () => {
    groupCommit = new GroupCommit(db, afterCommit, 1_000);
    const early = follow(groupCommit.run(write('early')));
    await nextTurn();
    await vi.advanceTimersByTimeAsync(500);
    const late = follow(groupCommit.run(write('late')));
    await vi.advanceTimersByTimeAsync(499);
    expect(early.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(early).toEqual({ settled: true, error: expect.objectContaining({ code: 'SQLITE_BUSY' }) });
    expect(late.settled).toBe(false);
    other.exec('COMMIT');
    await vi.advanceTimersByTimeAsync(100);
    expect(late).toEqual({ settled: true, value: 'late' });
    expect(committed()).toEqual(['late']);
  });

  it('fails at once with SQLITE_BUSY when writeWaitMs is 0', async () => {
    groupCommit = new GroupCommit(db, afterCommit, 0);
    const written = follow(groupCommit.run(write('a')));
    await nextTurn();
    expect(written).toEqual({ settled: true, error: expect.objectContaining({ code: 'SQLITE_BUSY' }) });
  });
});
