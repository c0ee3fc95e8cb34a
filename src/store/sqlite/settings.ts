// SQLite's settings, read from the environment by backend.ts without loading better-sqlite3: a server or a
// command on PostgreSQL never loads it.

/** The synchronous settings the service allows, as SQLite numbers them (OFF is never one of them). */
export const SYNCHRONOUS_LEVELS = { FULL: 2, EXTRA: 3, NORMAL: 1 } as const;
export type SynchronousMode = keyof typeof SYNCHRONOUS_LEVELS;
export const SYNCHRONOUS_MODES = Object.keys(SYNCHRONOUS_LEVELS) as SynchronousMode[];

export interface SqliteSettings {
  /** How each commit reaches the disk. */
  synchronous: SynchronousMode;
  /** How long a statement blocks the thread waiting for another process's lock. */
  busyTimeoutMs: number;
  /** How long a write waits for another process's write lock before it fails (503); see groupCommit.ts. */
  writeWaitMs: number;
}
