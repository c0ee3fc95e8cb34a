// A new folder and database path for each test, for tests that run the server and the CLI as processes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { ServerProcess } from './processes.js';

export interface ScratchDatabase {
  folder: string;
  env: { DATABASE_URL: string };
  /** Servers the test started: killed, and waited for, after it. */
  servers: ServerProcess[];
}

export function useScratchDatabase(prefix: string): ScratchDatabase {
  const scratch: ScratchDatabase = { folder: '', env: { DATABASE_URL: '' }, servers: [] };
  beforeEach(() => {
    scratch.folder = mkdtempSync(join(tmpdir(), prefix));
    scratch.env = { DATABASE_URL: join(scratch.folder, 'store.db') };
  });
  afterEach(async () => {
    for (const server of scratch.servers.splice(0)) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.finished;
    }
    rmSync(scratch.folder, { recursive: true, force: true });
  });
  return scratch;
}
