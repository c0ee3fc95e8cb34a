// The built server and CLI as real processes, the way an operator runs them.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
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

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  finished: Promise<Finished>;
  output: { stdout: string; stderr: string };
}

/**
 * Starts `node dist/main.js` (or another entry) on a free port; resolves once it listens. The database is
 * made first with `store-orders init`, as an operator would, unless `init` is false; the rate limits are
 * off unless the test sets them.
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
  if (init) {
    const made = await runCli(['init'], fullEnv, undefined, cwd);
    if (made.code !== 0) throw new Error(`store-orders init failed: ${made.stderr}`);
  }
  const child = spawn(process.execPath, entry, { cwd, env: fullEnv, stdio: 'pipe', ...spawnOptions });
  const { output, finished } = collect(child);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start:\n${output.stdout}${output.stderr}`)),
      15_000,
    );
    const look = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', look);
    void finished.then((result) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${result.code}:\n${result.stdout}${result.stderr}`));
    });
  });
  return { baseUrl, child, finished, output };
}
