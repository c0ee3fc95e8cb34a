// The package as a user gets it: `npm pack`, the tarball installed into an empty folder, and its CLI, its
// server, its API reference and its typed client used from there. The README's client example is the
// client package's (clientPackage.test.ts); the server package keeps its store-orders/client export.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Long enough for better-sqlite3 to compile from source (see buildSqlite).
// Hang guards: npm, npx and tsc take minutes on a machine busy with other work.
const INSTALL_TIMEOUT = 600_000;
const STEP_TIMEOUT = 300_000;
const SERVE_START_TIMEOUT = 120_000;

/**
 * The environment without the npm_* variables of an enclosing `npm test`: npm_config_local_prefix among
 * them would make every npm below work on this repository instead of the folder it runs in.
 */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, ...extra };
}

async function run(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      env: cleanEnv(env),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

interface Served {
  baseUrl: string;
  child: ChildProcess;
}

/** `npx store-orders serve` in its own process group, so that stopping it stops npx's children too. */
function serve(cwd: string, env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn('npx', ['store-orders', 'serve'], {
    cwd,
    env: cleanEnv({ PORT: '0', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop({ baseUrl: '', child });
      reject(new Error(`store-orders serve did not start in ${SERVE_START_TIMEOUT} ms:\n${output}`));
    }, SERVE_START_TIMEOUT);
    const collect = (chunk: Buffer) => {
      output += String(chunk);
      const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (listening?.[1]) {
        clearTimeout(timer);
        resolve({ baseUrl: listening[1], child });
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`store-orders serve exited with ${code}:\n${output}`));
    });
  });
}

function stop({ child }: Served): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  return exited;
}

/**
 * better-sqlite3 is the one dependency with an install script: it compiles itself from source (about 90 s
 * on 2 cores, since no prebuilt binary can be downloaded here). When the installed version is the one this
 * repository has, built by this same Node.js, its binary is exactly what that compile would produce and is
 * copied instead; any other version is compiled as a user's install would.
 */
async function buildSqlite(consumer: string): Promise<void> {
  const version = (folder: string) =>
    (
      JSON.parse(readFileSync(join(folder, 'node_modules/better-sqlite3/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  const binary = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
  if (version(consumer) === version(root) && existsSync(join(root, binary))) {
    mkdirSync(dirname(join(consumer, binary)), { recursive: true });
    copyFileSync(join(root, binary), join(consumer, binary));
  } else {
    await run('npm', ['rebuild', 'better-sqlite3'], consumer);
  }
}

let folder: string;
let consumer: string;
let packedFiles: string[];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-pack-'));
  consumer = join(folder, 'consumer');
  mkdirSync(consumer);
  // The global setup has just built dist/; `prepack` would build it again.
  const packed = JSON.parse(
    await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], root),
  ) as [{ filename: string; files: { path: string }[] }];
  packedFiles = packed[0].files.map((file) => file.path);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run(
    'npm',
    [
      'install',
      join(folder, packed[0].filename),
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
    ],
    consumer,
  );
  await buildSqlite(consumer);
}, INSTALL_TIMEOUT);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the packed store-orders, installed into an empty folder', () => {
  it('carries what it loads at run time: the contract, the built code, the docs renderer and the client types', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'openapi.yaml',
        'openapi.v2.yaml',
        'scripts/store-orders.js',
        'dist/cli/main.js',
        'dist/main.js',
        'generated/scalar-api-reference/standalone.js',
        'dist/client.js',
        'dist/client.d.ts',
        'generated/openapi.d.ts',
        'generated/openapi.v2.d.ts',
        // The contracts' OpenAPI 3.1 renditions, served beside them, and the build's JSON of them.
        'generated/openapi.3.1.yaml',
        'generated/openapi.v2.3.1.yaml',
        'dist/openapi.3.1.json',
        'dist/openapi.v2.3.1.json',
        'LICENSE',
        'CHANGELOG.md',
      ]),
    );
    // Nor the client package that `npm run pack:client` leaves in dist/.
    expect(packedFiles.filter((path) => /^(src|test|node_modules|dist\/client-package)\/|\.tgz$/.test(path))).toEqual(
      [],
    );
  });

  it(
    "serves with `npx store-orders serve`, and the shipped clients list orders through it with a CLI-made key: v1's whole list, v2's pages",
    async () => {
      const env = { DATABASE_URL: join(folder, 'store.db') };
      // Only `init` creates the database file; the server and the other commands refuse a missing one.
      await run('npx', ['store-orders', 'init'], consumer, env);
      const key = (await run('npx', ['store-orders', 'keys', 'create', '--account', 'x'], consumer, env))
        .trim()
        .split('\n')
        .at(-1);
      expect(key).toMatch(/^sok_[0-9A-Za-z]{39}$/);
      for (const petId of ['7', '8', '9']) {
        await run('npx', ['store-orders', 'orders', 'add', '--pet-id', petId, '--quantity', '2'], consumer, env);
      }
      const server = await serve(consumer, env);
      try {
        writeFileSync(
          join(consumer, 'list-orders.mjs'),
          [
            "import { createStoreOrdersClient } from 'store-orders/client';",
            'const [baseUrl, key] = process.argv.slice(2);',
            "const { data, error, response } = await createStoreOrdersClient(baseUrl, key).GET('/store/orders');",
            'console.log(JSON.stringify({ status: response.status, data, error }));',
          ].join('\n'),
        );
        const listed = JSON.parse(
          await run(process.execPath, ['list-orders.mjs', `${server.baseUrl}/v1`, key ?? ''], consumer),
        ) as { status: number; data: unknown; error: unknown };
        expect(listed).toEqual({
          status: 200,
          data: [7, 8, 9].map((petId): unknown => expect.objectContaining({ petId, quantity: 2 })),
        });

        // v2's client, a page of two at a time with a filter, each page asked for with the one before's cursor.
        writeFileSync(
          join(consumer, 'walk-orders.mjs'),
          [
            "import { createStoreOrdersClientV2 } from 'store-orders/client';",
            'const [baseUrl, key] = process.argv.slice(2);',
            'const client = createStoreOrdersClientV2(baseUrl, key);',
            'const pages = [];',
            'let cursor;',
            'do {',
            "  const { data, error } = await client.GET('/store/orders', {",
            "    params: { query: { limit: 2, status: ['pending'], cursor } },",
            '  });',
            '  if (error) throw new Error(JSON.stringify(error));',
            '  pages.push(data.data.map((order) => order.petId));',
            '  cursor = data.nextCursor;',
            '} while (cursor);',
            'console.log(JSON.stringify(pages));',
          ].join('\n'),
        );
        const walked = JSON.parse(
          await run(process.execPath, ['walk-orders.mjs', `${server.baseUrl}/v2`, key ?? ''], consumer),
        ) as unknown;
        expect(walked).toEqual([[7, 8], [9]]);

        // The API reference works from the package too: its renderer is the copy the tarball carries.
        const page = await (await fetch(`${server.baseUrl}/docs`)).text();
        const renderer = /src="(\/docs\/assets\/scalar\.[^"]+)"/.exec(page)?.[1];
        expect((await fetch(`${server.baseUrl}${renderer ?? '/docs/assets/missing'}`)).status).toBe(200);
      } finally {
        await stop(server);
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "type-checks a consumer of store-orders/client's v1 and v2 clients against the installed declarations",
    async () => {
      writeFileSync(
        join(consumer, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2022'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
            noEmit: true,
            // A Node.js consumer has @types/node; this repository's copy stands in for it.
            typeRoots: [join(root, 'node_modules/@types')],
            types: ['node'],
          },
          files: ['consumer.ts'],
        }),
      );
      writeFileSync(
        join(consumer, 'consumer.ts'),
        [
          "import { createStoreOrdersClient, createStoreOrdersClientV2, type ErrorBody } from 'store-orders/client';",
          "const client = createStoreOrdersClient('http://127.0.0.1:3000/v1', 'sok_example');",
          "const { data, error } = await client.GET('/store/orders');",
          'const ids: number[] = (data ?? []).map((order) => order.id);',
          'const refusal: ErrorBody | undefined = error;',
          "const cancelled = await client.DELETE('/store/orders/{orderId}', { params: { path: { orderId: 1 } } });",
          'const code: string | undefined = cancelled.error?.code;',
          '// @ts-expect-error: the contract has no such path, so the compiler refuses it',
          "await client.GET('/store/nothing');",
          '// @ts-expect-error: cancelOrder needs its orderId',
          "await client.DELETE('/store/orders/{orderId}', {});",
          "const v2 = createStoreOrdersClientV2('http://127.0.0.1:3000/v2', 'sok_example');",
          "const page = await v2.GET('/store/orders', { params: { query: { limit: 2, status: ['pending', 'cancelled'] } } });",
          'const next: string | undefined = page.data?.nextCursor;',
          'const statuses: string[] = (page.data?.data ?? []).map((order) => order.status);',
          "// @ts-expect-error: v2 has no getPetById",
          "await v2.GET('/pets/{petId}', { params: { path: { petId: 1 } } });",
          "// @ts-expect-error: not a status the contract knows",
          "await v2.GET('/store/orders', { params: { query: { status: ['lost'] } } });",
          'export { ids, refusal, code, next, statuses };',
        ].join('\n'),
      );
      await run(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
        consumer,
      );
    },
    STEP_TIMEOUT,
  );
});
