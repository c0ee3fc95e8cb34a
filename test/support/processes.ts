// The built server and CLI as real processes, the way an operator runs them.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const SERVER_ENTRY = `${root}dist/main.js`;
export const CLI_ENTRY = `${root}dist/cli/main.js`;

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): {
  output: { stdout: string; stderr: string };
  finished: Promise<Finished>;
} {
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk) => {
    output.stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output.stderr += String(chunk);
  });
  const finished = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
  return { output, finished };
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  cwd: string = root,
): Promise<Finished> {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
  child.stdin.end(input ?? '');
  return collect(child).finished;
}

/** `node <args>` in the checkout, as a script of bench/ or scripts/ is run; stopped (SIGTERM) after `timeoutMs`. */
export function runScript(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Finished> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  return collect(child).finished;
}

/**
 * A server that neither listens nor exits by then is taken for hung: a hang guard, far beyond a start on a
 * machine busy with other work, and within the suite's test and hook time-outs.
 */
const START_HANG_GUARD_MS = 120_000;

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  finished: Promise<Finished>;
  output: { stdout: string; stderr: string };
}

/**
 * Starts `node dist/main.js` (or another entry) on a free port; resolves once it listens. The database is
 * made first with `store-orders init`, as an operator would, unless `init` is false: in this process
 * (commandLine.ts), or as a process when `cwd` is another folder, against which a relative DATABASE_URL
 * is read. The rate limits are off unless the test sets them.
 */
export async function spawnServer(
  env: NodeJS.ProcessEnv,
  {
    entry = [SERVER_ENTRY],
    cwd = root,
    init = true,
    spawnOptions = {},
  }: { entry?: string[]; cwd?: string; init?: boolean; spawnOptions?: SpawnOptions } = {},
): Promise<ServerProcess> {
  const fullEnv = {
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'info',
    RATE_LIMIT_REQUESTS: '0',
    RATE_LIMIT_AUTH_FAILURES: '0',
    ...env,
  };
  // Above info the server does not log where it listens, so it is told a free port instead.
  const logsItsAddress = ['info', 'debug', 'trace'].includes(fullEnv.LOG_LEVEL);
  if (!logsItsAddress) fullEnv.PORT = String(await freePort());
  if (init) {
    const made =
      resolve(cwd) === process.cwd()
        ? await (await import('./commandLine.js')).runCliInProcess(['init'], fullEnv)
        : await runCli(['init'], fullEnv, undefined, cwd);
    if (made.code !== 0) throw new Error(`store-orders init failed: ${made.stderr}`);
  }
  const child = spawn(process.execPath, entry, { cwd, env: fullEnv, stdio: 'pipe', ...spawnOptions });
  const { output, finished } = collect(child);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${START_HANG_GUARD_MS} ms:\n${output.stdout}${output.stderr}`));
    }, START_HANG_GUARD_MS);
    const look = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    if (logsItsAddress) child.stdout?.on('data', look);
    else
      void untilHealthy(`http://127.0.0.1:${fullEnv.PORT}`, finished).then((url) => {
        clearTimeout(timer);
        resolve(url);
      });
    void finished.then((result) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${result.code}:\n${result.stdout}${result.stderr}`));
    });
  });
  return { baseUrl, child, finished, output };
}

/** Resolves once `text` is in the server's standard output; rejects if the server exits first. */
export function untilLogged(server: ServerProcess, text: string | RegExp): Promise<void> {
  const logged = () =>
    typeof text === 'string' ? server.output.stdout.includes(text) : text.test(server.output.stdout);
  return new Promise((resolve, reject) => {
    const look = () => {
      if (!logged()) return;
      server.child.stdout?.off('data', look);
      resolve();
    };
    server.child.stdout?.on('data', look);
    void server.finished.then((result) => reject(new Error(`the server exited before logging ${String(text)}:\n${result.stdout}`)));
    look();
  });
}

/** Resolves once each of the server's `workers` (WORKERS=N) has logged that it listens. */
export function untilWorkersListen(server: ServerProcess, workers: number): Promise<void> {
  return untilLogged(server, new RegExp(`(Server listening at[^]*){${workers}}`));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

async function untilHealthy(baseUrl: string, finished: Promise<Finished>): Promise<string> {
  let exited = false;
  void finished.then(() => {
    exited = true;
  });
  while (!exited) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return baseUrl;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return baseUrl;
}
