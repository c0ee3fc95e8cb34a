// The servers a scenario compares: each started on its own copy of a database, watched until the bench
// ends, and read from /proc (CPU time, peak memory).
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { described, fail, running, sleep } from './lifecycle.mjs';
import { root, START_TIMEOUT_MS } from './settings.mjs';

/**
 * A contender as a scenario declares it: `kind` names it in the bench's figures and failures, `entry` is
 * the file Node runs, `env` its settings beyond the bench's own.
 */
export const contender = (kind, entry, env = {}) => ({ kind, entry, env });
/** The project's built server (`kind` other than "project" when one scenario runs it twice). */
export const project = (kind = 'project', env = {}) => contender(kind, `${root}dist/main.js`, env);
/** A baseline server of bench/servers/, named after its file. */
export const baseline = (name, env = {}) => contender(name, `${root}bench/servers/${name}.mjs`, env);

export function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A running contender on its own copy of the SQLite file at `database`, or on the PostgreSQL database it
 * names; resolves once `probe` answers 200 (by default an authenticated listOrders, which is also what cold
 * start measures). Load scenarios start theirs together (`startAll`); cold start one at a time, since it
 * times them.
 */
export async function start({ kind, entry, env }, database, key, probe = '/v1/store/orders') {
  let copy = database;
  if (!database.startsWith('postgres://')) {
    copy = `${database}.${kind}.${Math.random().toString(36).slice(2)}`;
    copyFileSync(database, copy);
  }
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      DATABASE_URL: copy,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The quota stays on, so its cost is measured, but out of reach: the configuration's largest
      // count, per 60-second window, is more than one key can send at full speed.
      RATE_LIMIT_REQUESTS: '999999999',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const contender = {
    kind,
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: '',
    ready: false,
    stopped: false,
    stop() {
      contender.stopped = true;
      running.delete(contender);
      child.kill('SIGKILL');
    },
  };
  running.add(contender);
  child.stderr.on('data', (chunk) => {
    contender.stderr = (contender.stderr + chunk).slice(-16_384);
  });
  // 'close' comes after stderr has been read to its end, so the reason for the exit is in it.
  child.on('close', (code, signal) => {
    if (contender.stopped) return;
    const when = contender.ready ? 'during the run' : `before answering ${probe}`;
    fail(`${described(contender)}\n(it exited with ${signal ?? `status ${code}`} ${when})`);
  });
  child.on('error', (error) => fail(`${described(contender)}\n(it could not be started: ${error.message})`));

  await answered(contender, probe, key, started + START_TIMEOUT_MS);
  contender.ready = true;
  contender.coldStartMs = performance.now() - started;
  return contender;
}

/** Resolves once `probe` answers 200 with `key`; fails the bench at `deadline` (performance.now()). */
async function answered(contender, probe, key, deadline) {
  let last = 'no answer';
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) {
      const timedOut = `${probe} did not answer 200 within ${START_TIMEOUT_MS} ms; last: ${last}`;
      fail(`${described(contender)}\n(${timedOut})`);
    }
    try {
      const response = await fetch(`${contender.url}${probe}`, {
        headers: { Authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(Math.ceil(left)),
      });
      await response.arrayBuffer();
      if (response.status === 200) return;
      last = `status ${response.status}`;
    } catch (error) {
      // Not listening yet, or the probe's own time ran out.
      last = error.cause?.code ?? error.name;
    }
    await sleep(5);
  }
}

/** The declared contenders started together on copies of one database, in the order given. */
export function startAll(contenders, database, key, probe) {
  return Promise.all(contenders.map((declared) => start(declared, database, key, probe)));
}

export function peakRssMiB(child) {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** The CPU time `child` has used so far, every thread, in clock ticks: utime and stime of /proc/<pid>/stat. */
function cpuTimes(child) {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]), kernel: Number(fields[12]) };
}

/**
 * The CPU time the contender's process has used, every thread, in ms (Linux's ticks are of 10 ms): in all,
 * and the part in user space. The kernel's part is mostly the socket's: the same for every contender that
 * sends the same bytes, so the user-space part tells two servers' own work apart more sharply.
 */
export function cpuMs(contender) {
  const { user, kernel } = cpuTimes(contender.child);
  return { all: (user + kernel) * 10, user: user * 10 };
}

/**
 * Resolves once `contender` has been idle for half a second (1 clock tick of CPU at most), that is, has
 * answered what a load run left it: a server that answers from SQLite blocks while it reads, so requests
 * cut off by the run's end are still answered one after another, and a request sent to wait behind them
 * may be read first. Fails after 10 minutes.
 */
export async function idle(contender) {
  const deadline = performance.now() + 600_000;
  for (let before = cpuMs(contender).all; performance.now() < deadline; ) {
    await sleep(500);
    const now = cpuMs(contender).all;
    if (now - before <= 10) return;
    before = now;
  }
  fail(`${described(contender)}\n(it was still busy 10 minutes after a load run)`);
}
