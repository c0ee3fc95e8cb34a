// The server as a supervisor runs it: the commands of docs/store-orders.service (systemd) and of the
// Dockerfile (a container), read from those files and run as written, then stopped as each supervisor stops
// them: its stop signal to the one process it started, and to nothing else. The server must log its stop,
// answer the request in flight, close the port, leave no process behind and exit 0. Docker cannot run here,
// so the image is stood in for by a folder holding exactly what its last stage copies.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { STOP_GRACE_MS } from '../../src/workers.js';
import { freePort, runCli } from '../support/processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The unit's and the image's path to Node; here, the Node that runs the tests. */
const UNIT_NODE = '/usr/bin/node';

interface Supervised {
  /** Run to completion, in order, before the server (systemd's ExecStartPre). */
  before: string[][];
  /** The process the supervisor starts, and signals. */
  main: string[];
  env: Record<string, string>;
  stopSignal: string;
  /** The folder the commands run in. */
  cwd: string;
}

/** `KEY=value` settings, the value taken whole: neither file quotes or escapes anything. */
function assignment(text: string): [string, string] {
  const at = text.indexOf('=');
  expect(text.slice(at + 1)).not.toMatch(/["'\\$%]/);
  return [text.slice(0, at), text.slice(at + 1)];
}

function systemdUnit(): Supervised & { settings: Map<string, string[]> } {
  const settings = new Map<string, string[]>();
  for (const line of readFileSync(join(root, 'docs/store-orders.service'), 'utf8').split('\n')) {
    if (!/^[A-Za-z]+=/.test(line)) continue;
    const [key, value] = assignment(line);
    settings.set(key, [...(settings.get(key) ?? []), value]);
  }
  const command = (line: string) => {
    const [program, ...args] = line.split(/\s+/);
    expect(program).toBe(UNIT_NODE);
    return [process.execPath, ...args];
  };
  return {
    settings,
    before: (settings.get('ExecStartPre') ?? []).map(command),
    main: command(settings.get('ExecStart')?.[0] ?? ''),
    env: Object.fromEntries((settings.get('Environment') ?? []).map(assignment)),
    stopSignal: settings.get('KillSignal')?.[0] ?? 'SIGTERM',
    cwd: root,
  };
}

/** The Dockerfile's last stage: its instructions, continuation lines joined. */
function imageStage(): { instructions: (name: string) => string[]; text: string } {
  const text = readFileSync(join(root, 'docs', 'Dockerfile'), 'utf8');
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const stage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')));
  const instructions = (name: string) =>
    stage.filter((line) => line.startsWith(`${name} `)).map((line) => line.slice(name.length + 1).trim());
  return { instructions, text };
}

/** The image as a folder: what its last stage copies from the build, which here is this checkout. */
function dockerImage(folder: string): Supervised {
  const { instructions } = imageStage();
  expect(instructions('WORKDIR')).toEqual(['/app']);
  const app = join(folder, 'app');
  mkdirSync(app);
  for (const copy of instructions('COPY')) {
    const [, from, to] = /^--from=build \/app\/(\S+) \.\/(\S+)$/.exec(copy) ?? [];
    expect(from, copy).toBe(to);
    // The image's node_modules are the build's without the devDependencies; these hold them all.
    if (from === 'node_modules') symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'));
    else cpSync(join(root, from as string), join(app, to as string), { recursive: true });
  }
  const [cmd = '[]'] = instructions('CMD');
  return {
    before: [],
    main: JSON.parse(cmd) as string[],
    env: Object.fromEntries(instructions('ENV').flatMap((line) => line.split(/\s+/)).map(assignment)),
    stopSignal: instructions('STOPSIGNAL')[0] ?? 'SIGTERM',
    cwd: app,
  };
}

interface LogLine {
  pid: number;
  msg: string;
  reqId?: string;
  signal?: string;
}

let folder: string;
let started: number | undefined;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-supervised-'));
});
afterEach(() => {
  // Whatever a failed test left in the supervised process group.
  try {
    if (started !== undefined) process.kill(-started, 'SIGKILL');
  } catch {
    // Nothing left.
  }
  started = undefined;
  rmSync(folder, { recursive: true, force: true });
});

function run(command: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(command[0] as string, command.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** A sendMessage whose body is still arriving: it stays in flight until `finish` sends the rest. */
function sendSlowly(port: number, key: string, id: string) {
  const body = JSON.stringify({ message: id });
  const sending = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/messages',
    agent: false,
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      'Content-Length': body.length,
      'X-Request-Id': id,
    },
  });
  const answer = new Promise<{ status: number; connection: string | undefined } | { error: string }>((resolve) => {
    sending.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    });
    sending.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
  sending.write(body.slice(0, 5));
  return { answer, finish: () => sending.end(body.slice(5)) };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Starts `supervised` as its supervisor would, with a request in flight stops it, and checks the stop. */
async function superviseAndStop(supervised: Supervised, workers: number): Promise<void> {
  const port = await freePort();
  const database = join(folder, 'data', 'store.db');
  const env = {
    // A supervisor's environment: little beyond what the file sets.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    ...supervised.env,
    DATABASE_URL: database,
    HOST: '127.0.0.1',
    PORT: String(port),
    WORKERS: String(workers),
    // The request in flight is seen arriving in the log, which writes 'incoming request' at debug only.
    LOG_LEVEL: 'debug',
  };
  for (const command of supervised.before) {
    const { code, output } = await run(command, env, supervised.cwd);
    expect(code, output).toBe(0);
  }
  // A process group of its own, as a service or a container has: what is left in it after the stop is
  // what the stop left behind.
  const child = spawn(supervised.main[0] as string, supervised.main.slice(1), {
    cwd: supervised.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid as number;
  started = pid;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  // The process's own end, which comes before its output's when a process it started outlives it.
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise((resolve) => child.on('close', resolve));
  const lines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  const untilLogged = (done: (log: LogLine[]) => boolean) =>
    new Promise<LogLine[]>((resolve, reject) => {
      const look = () => {
        if (!done(lines())) return;
        child.stdout.off('data', look);
        resolve(lines());
      };
      child.stdout.on('data', look);
      void exited.then(() => reject(new Error(`the server exited:\n${stdout}${stderr}`)));
      look();
    });
  const listening = (log: LogLine[]) => log.filter((line) => line.msg.startsWith('Server listening at'));
  await untilLogged((log) => listening(log).length === workers);

  const created = await runCli(['keys', 'create', '--account', 'acme'], { DATABASE_URL: database });
  const slow = sendSlowly(port, created.stdout.trim(), 'in-flight');
  const received = await untilLogged((log) => log.some((line) => line.reqId === 'in-flight'));
  const holder = received.find((line) => line.reqId === 'in-flight')?.pid;

  process.kill(pid, supervised.stopSignal);
  await untilLogged((log) => log.some((line) => line.pid === holder && line.msg.startsWith('stopping: no new connections')));
  slow.finish();
  expect(await slow.answer).toEqual({ status: 202, connection: 'close' });

  expect(await exited, stderr).toEqual({ code: 0, signal: null });
  // Nothing left running in its process group, and nothing on its port.
  expect(() => process.kill(-pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  started = undefined;
  expect(await portIsFree(port)).toBe(true);
  await closed;
  const log = lines();
  const own = log.filter((line) => line.pid === pid);
  expect(own.filter((line) => line.msg.startsWith('stopping'))).toEqual([
    expect.objectContaining({ signal: supervised.stopSignal }),
  ]);
  expect(own.at(-1)?.msg).toBe('stopped');
  const servers = listening(log).map((line) => line.pid);
  expect(log.filter((line) => line.msg === 'stopped' && servers.includes(line.pid))).toHaveLength(workers);
  const stored = await runCli(['messages', 'list'], { DATABASE_URL: database });
  expect(JSON.parse(stored.stdout)).toEqual([expect.objectContaining({ message: 'in-flight' })]);
}

describe('under a supervisor', () => {
  it('the systemd unit and the Dockerfile run the same commands: init, then the server as the signalled process', () => {
    const unit = systemdUnit();
    const image = dockerImage(folder);
    const unitCommand = (command: string[]) => ['node', ...command.slice(1)].join(' ');
    const script = `${unit.before.map(unitCommand).join(' && ')} && exec ${unitCommand(unit.main)}`;
    expect(image.main).toEqual(['sh', '-c', script]);
    expect(unit.main.slice(1)).toEqual(['dist/main.js']);
    expect(unit.before.map((command) => command.slice(1))).toEqual([['dist/cli/main.js', 'init']]);
  });

  it('gives a stop time beyond what a stop may take, and signals the server alone', () => {
    const mayTakeMs = loadConfig({}).stopTimeoutMs + STOP_GRACE_MS;
    const { settings, stopSignal } = systemdUnit();
    expect(stopSignal).toBe('SIGTERM');
    expect(settings.get('KillMode')).toEqual(['mixed']);
    expect(Number(settings.get('TimeoutStopSec')?.[0]) * 1000).toBeGreaterThan(mayTakeMs);
    // Docker's stop time is set where the container is run, which the Dockerfile's own usage shows.
    const { instructions, text } = imageStage();
    expect(instructions('STOPSIGNAL')).toEqual(['SIGTERM']);
    expect(Number(/--stop-timeout (\d+)/.exec(text)?.[1]) * 1000).toBeGreaterThan(mayTakeMs);
  });

  it.each([
    ['the systemd unit', 1, 'systemd'],
    ['the systemd unit', 2, 'systemd'],
    ['the Dockerfile', 1, 'docker'],
    ['the Dockerfile', 2, 'docker'],
  ] as const)('%s with WORKERS=%i: the stop signal answers the request in flight and leaves nothing behind', async (_name, workers, kind) => {
    await superviseAndStop(kind === 'systemd' ? systemdUnit() : dockerImage(folder), workers);
  });
});
