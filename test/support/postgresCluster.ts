// A PostgreSQL cluster of a test's own (scripts/throwaway-postgres.sh), for faults that touch the whole
// server: a restart or a crash must not disturb the other tests' databases.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/throwaway-postgres.sh', import.meta.url));
const PG_CTL = '/usr/lib/postgresql/15/bin/pg_ctl';

export interface Cluster {
  url: string;
  /** Stops the server: `fast` as an operator's restart does, `immediate` as a crash (recovery at start). */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

const asOwner = (args: string[]) => (process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0], args.slice(1)]) as [string, string[]];

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'store-orders-cluster-'));
  const port = String(56_000 + Math.floor(Math.random() * 4_000));
  const { stdout } = await run(SCRIPT, ['start', dir, port]);
  const pgCtl = (...args: string[]) => run(...asOwner([PG_CTL, '-D', join(dir, 'data'), '-w', ...args]));
  return {
    url: stdout.trim(),
    stop: async (mode) => {
      await pgCtl('-m', mode, 'stop');
    },
    start: async () => {
      await pgCtl('-l', join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start');
    },
    remove: async () => {
      await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
