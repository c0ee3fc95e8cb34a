import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { runCliInProcess } from '../support/commandLine.js';
import { runCli, SERVER_ENTRY } from '../support/processes.js';

// None of these commands may reach a database: each runs against a path that does not exist, and the test
// checks that nothing was made there. A few run as the real process; the many others run in this process
// (commandLine.ts: the same code through the same command table, stdout and stderr captured), which takes
// milliseconds.
let folder: string;
let env: { DATABASE_URL: string };
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-usage-'));
  env = { DATABASE_URL: join(folder, 'typo', 'store.db') };
});
afterEach(() => {
  expect(existsSync(join(folder, 'typo'))).toBe(false);
  rmSync(folder, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, env);
const run = (...args: string[]) => runCliInProcess(args, env);

const VERBS: Record<string, string[]> = {
  accounts: ['create'],
  keys: ['create', 'list', 'revoke'],
  orders: ['add', 'import', 'ship', 'list'],
  pets: ['add'],
  messages: ['list'],
  deprecations: ['list'],
};

describe('store-orders on a missing database file', () => {
  it('exits 1 with the message the server prints, for every command but init, and creates nothing', async () => {
    const server = spawnSync(process.execPath, [SERVER_ENTRY], {
      env: { ...process.env, ...env, PORT: '0' },
      encoding: 'utf8',
      // A hang guard: the server is expected to exit at once, however slowly it starts.
      timeout: 120_000,
    });
    expect(server.status).toBe(1);
    expect(server.stderr).toBe(
      `store-orders: cannot open database ${env.DATABASE_URL}: ${env.DATABASE_URL} does not exist; ` +
        'create it with `store-orders init`, or point DATABASE_URL at the right file\n',
    );
    // As a process, as the issue reported it: exit 0, a new file, and a key the server never sees.
    const keysCreate = await cli('keys', 'create', '--account', 'x');
    expect(keysCreate).toMatchObject({ code: 1, stderr: server.stderr, stdout: '' });

    const orders = join(folder, 'orders.json');
    writeFileSync(orders, '[{"petId":1,"quantity":1}]');
    const commands = [
      ['keys', 'list'],
      ['keys', 'revoke', '1'],
      ['accounts', 'create', 'x'],
      ['orders', 'add', '--pet-id', '1', '--quantity', '1'],
      ['orders', 'import', orders],
      ['orders', 'ship', '1'],
      ['orders', 'list'],
      ['pets', 'add', '--name', 'Rex'],
      ['messages', 'list'],
      ['deprecations'],
      ['backup', join(folder, 'copy.db')],
    ];
    for (const args of commands) {
      const { code, stderr, stdout } = await run(...args);
      expect({ args, code, stderr, stdout }).toEqual({ args, code: 1, stderr: server.stderr, stdout: '' });
    }
    expect(existsSync(join(folder, 'copy.db'))).toBe(false);
  });

  it('is created by init, and only by init', async () => {
    // As a process: the init family's run of the real CLI.
    const made = await cli('init');
    expect(made).toMatchObject({ code: 0, stdout: `database ready: ${env.DATABASE_URL}\n`, stderr: '' });
    expect(existsSync(env.DATABASE_URL)).toBe(true);
    expect((await run('keys', 'list')).stdout).toBe('[]\n');
    rmSync(join(folder, 'typo'), { recursive: true });
  });
});

describe('store-orders --version', () => {
  it('--version and version print the version of package.json and exit 0', async () => {
    const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    expect(VERSION).toBe(packageVersion);
    expect(await cli('--version')).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect(await run('version')).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });
});

describe('store-orders help', () => {
  it.each([['--help'], ['-h'], ['help']])('%s prints every command on stdout and exits 0', async (arg) => {
    const result = await run(arg);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: store-orders <command>/);
    for (const [noun, verbs] of Object.entries(VERBS)) {
      for (const verb of verbs.filter((name) => noun !== 'deprecations' || name !== 'list')) {
        expect(result.stdout).toContain(`${noun} ${verb}`);
      }
    }
    for (const command of ['init', 'serve', 'backup FILE', 'version']) expect(result.stdout).toContain(command);
  });

  it('has a page for each noun: `<noun> --help` prints it, as do `<noun> -h` and `help <noun>`', async () => {
    const asked = [
      ...Object.keys(VERBS).map((noun) => [noun, '--help']),
      ['keys', '-h'],
      ['help', 'keys'],
    ];
    const results = await Promise.all(asked.map((args) => run(...args)));
    asked.forEach((args, index) => {
      const noun = args.find((arg) => Object.hasOwn(VERBS, arg)) as string;
      const result = results[index];
      expect({ args, code: result?.code, stderr: result?.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(result?.stdout).toMatch(new RegExp(`^Usage: store-orders ${noun} `));
      for (const verb of VERBS[noun] ?? []) expect(result?.stdout).toContain(`${noun} ${verb}`);
    });
  });

  it('has a page for each command: `<noun> <verb> --help` (or -h) prints its usage and what it does', async () => {
    const asked = [
      ...Object.entries(VERBS).flatMap(([noun, verbs]) => verbs.map((verb) => [noun, verb, '--help'])),
      ...['init', 'serve', 'backup', 'version'].map((command) => [command, '--help']),
      ['orders', 'add', '-h'],
      ['help', 'orders', 'add'],
    ];
    const results = await Promise.all(asked.map((args) => run(...args)));
    asked.forEach((args, index) => {
      const command = args.filter((arg) => !['help', '--help', '-h'].includes(arg)).join(' ');
      const result = results[index];
      expect({ args, code: result?.code, stderr: result?.stderr }).toEqual({ args, code: 0, stderr: '' });
      const [usage, blank, description] = result?.stdout.split('\n') ?? [];
      expect(usage).toMatch(new RegExp(`^Usage: store-orders ${command}( |$)`));
      expect(blank).toBe('');
      expect(description?.length).toBeGreaterThan(10);
    });
  });

  it('describes orders add and each of its options', async () => {
    // As a process: what an operator types.
    const { stdout } = await cli('orders', 'add', '--help');
    expect(stdout).toMatch(/^Usage: store-orders orders add --pet-id N --quantity N/);
    expect(stdout).toMatch(/Adds an order/);
    for (const option of ['--pet-id', '--quantity', '--ship-date', '--complete', '--status']) {
      expect(stdout).toMatch(new RegExp(`^  ${option}`, 'm'));
    }
  });
});

describe('store-orders usage mistakes', () => {
  it('with no arguments at all prints the usage on stderr and exits 2', async () => {
    const result = await cli();
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe((await run('--help')).stdout);
  });

  const mistakes: [string[], string][] = [
    [['frobnicate'], 'unknown command "frobnicate"; see store-orders --help'],
    [['--frobnicate'], 'unknown option --frobnicate; see store-orders --help'],
    [['help', 'frobnicate'], 'unknown command "frobnicate"; see store-orders --help'],
    [['orders'], 'orders: missing command: add, import, ship or list; see store-orders orders --help'],
    [['orders', 'delete'], 'orders: unknown command "delete"; see store-orders orders --help'],
    [['help', 'orders', 'delete'], 'orders: unknown command "delete"; see store-orders orders --help'],
    [['orders', 'add', '--quantity'], 'orders add: --quantity needs a value; see store-orders orders add --help'],
    [
      ['orders', 'add', '--pet-id', '1', '--quantity', '-1'],
      'orders add: --quantity must be a positive whole number, got "-1"; see store-orders orders add --help',
    ],
    [
      ['orders', 'add', '--pet-id', '1', '--quantity=-1'],
      'orders add: --quantity must be a positive whole number, got "-1"; see store-orders orders add --help',
    ],
    [
      ['orders', 'add', '--pet-id', '1', '--quantity', '--complete'],
      'orders add: --quantity needs a value; see store-orders orders add --help',
    ],
    [
      ['orders', 'add', '--pet-id', '1', '--quantity', '1', '--colour', 'red'],
      'orders add: unknown option --colour; see store-orders orders add --help',
    ],
    [
      ['orders', 'add', '--pet-id', '1', '--quantity', '1', '--complete=yes'],
      'orders add: --complete takes no value; see store-orders orders add --help',
    ],
    [
      ['orders', 'add', '--pet-id', '1', '--pet-id', '2', '--quantity', '1'],
      'orders add: --pet-id is given twice; see store-orders orders add --help',
    ],
    [
      ['orders', 'add', '--pet-id', '1', '--quantity', '1', 'extra'],
      'orders add: unexpected argument "extra"; see store-orders orders add --help',
    ],
    [['orders', 'ship', '-1'], 'orders ship: the order ID must be a positive whole number, got "-1"; see store-orders orders ship --help'],
    [['keys', 'list', 'extra'], 'keys list: unexpected argument "extra"; see store-orders keys list --help'],
    [['keys', 'create', '--account'], 'keys create: --account needs a value; see store-orders keys create --help'],
    [['init', 'extra'], 'init: unexpected argument "extra"; see store-orders init --help'],
    [['version', '--short'], 'version: unknown option --short; see store-orders version --help'],
    [['backup'], 'backup: expected exactly one FILE; see store-orders backup --help'],
  ];

  it('`orders add --quantity -1`, as the process the issue ran, is one line on stderr, exit 2', async () => {
    const result = await cli('orders', 'add', '--pet-id', '1', '--quantity', '-1');
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'store-orders: orders add: --quantity must be a positive whole number, got "-1"; ' +
        'see store-orders orders add --help\n',
    });
  });

  it('each is one line on stderr naming the command, what is wrong and its help; exit 2', async () => {
    const results = await Promise.all(mistakes.map(([args]) => run(...args)));
    mistakes.forEach(([args, message], index) => {
      const { code, stdout, stderr } = results[index] ?? {};
      expect({ args, code, stdout, stderr }).toEqual({ args, code: 2, stdout: '', stderr: `store-orders: ${message}\n` });
    });
  });
});
