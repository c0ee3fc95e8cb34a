// A PostgreSQL cluster of a test's own (scripts/throwaway-postgres.sh), for faults that touch the whole
// server: a restart or a crash must not disturb the other tests' databases.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
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
  /**
   * Stops (SIGSTOP) the postmaster and every process it started, as a partition would: each socket stays
   * open and the system still accepts connections into the listen queue, but nothing answers.
   */
  pause(): Promise<void>;
  /** SIGCONT to the same processes: each carries on where it stopped. */
  resume(): Promise<void>;
  remove(): Promise<void>;
}

const asOwner = (args: string[]) => (process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0], args.slice(1)]) as [string, string[]];

/** A port nothing listens on now. A random pick from a range collides with the clients' own ports. */
export function freePort(): Promise<string> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(String(address.port)) : reject(new Error('no port')),
      );
    });
  });
}

/** Another process may take the port between the probe and the start: then once more, on another. */
async function startedCluster(): Promise<{ dir: string; port: string; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'store-orders-cluster-'));
    const port = await freePort();
    try {
      const { stdout } = await run(SCRIPT, ['start', dir, port]);
      return { dir, port, url: stdout.trim() };
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      if (attempt === 3) throw error;
    }
  }
}

export async function startCluster(): Promise<Cluster> {
  const { dir, port, url } = await startedCluster();
  const pgCtl = (...args: string[]) => run(...asOwner([PG_CTL, '-D', join(dir, 'data'), '-w', ...args]));
  let paused: number[] = [];
  return {
    url,
    stop: async (mode) => {
      await pgCtl('-m', mode, 'stop');
    },
    start: async () => {
      await pgCtl('-l', join(dir, 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start');
    },
    pause: async () => {
      const postmaster = postmasterPid(dir);
      paused = [postmaster, ...(await childrenOf(postmaster))];
      for (const pid of paused) process.kill(pid, 'SIGSTOP');
    },
    resume: () => {
      for (const pid of paused.splice(0)) process.kill(pid, 'SIGCONT');
      return Promise.resolve();
    },
    remove: async () => {
      for (const pid of paused.splice(0)) process.kill(pid, 'SIGCONT');
      await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first line of postmaster.pid, as `pg_ctl status` reports it. */
function postmasterPid(dir: string): number {
  return Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** The postmaster's children: the backends and its background processes. */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await run('pgrep', ['-P', String(pid)]);
  return stdout.trim().split('\n').filter(Boolean).map(Number);
}

export interface Bouncer {
  url: string;
  stop(): Promise<void>;
}

/**
 * PgBouncer in transaction mode in front of `cluster`: each transaction may run on another server
 * connection, so nothing may outlive one (named prepared statements, session settings).
 */
export async function startPgBouncer(cluster: Cluster, serverConnections: number): Promise<Bouncer> {
  const target = new URL(cluster.url);
  const dir = mkdtempSync(join(tmpdir(), 'store-orders-pgbouncer-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${target.port} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 500',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    ].join('\n'),
  );
  if (process.getuid?.() === 0) await run('chown', ['-R', 'postgres:', dir]);
  // PgBouncer refuses to run as root.
  await run(...asOwner(['/usr/sbin/pgbouncer', '-d', join(dir, 'pgbouncer.ini')]));
  const url = new URL(cluster.url);
  url.port = port;
  return {
    url: url.toString(),
    stop: () => {
      const pid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8'));
      process.kill(pid, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}
