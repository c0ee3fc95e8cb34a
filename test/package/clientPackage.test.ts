// The client package as a user gets it: `scripts/pack-client.mjs` (npm run pack:client without its build,
// which the global setup has done), the tarball installed into an empty folder, and the client guide's
// example (docs/client.md) compiled and run from there against a live server, exactly as the guide writes it.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientExample } from '../../scripts/pack-client.mjs';
import { createKey, startServer } from '../support/server.js';
import { callerFor } from '../support/caller.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
/** The client's guide, whose commands and example the tests run as written. */
const section = readFileSync(join(root, 'docs', 'client.md'), 'utf8');
// Hang guards: npm and tsc take minutes on a machine busy with other work.
const INSTALL_TIMEOUT = 600_000;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command's exit code and output; the npm_* variables of an enclosing `npm test` are left out. */
async function run(command: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, { cwd, env: { ...env, ...extraEnv } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof code === 'number' ? code : -1, stdout: stdout ?? '', stderr: stderr ?? '' };
  }
}

async function succeed(command: string, args: string[], cwd: string): Promise<string> {
  const ran = await run(command, args, cwd);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${ran.code}:\n${ran.stdout}${ran.stderr}`);
  return ran.stdout;
}

/** Every package under node_modules (scoped ones as @scope/name), from its folders. */
function installedPackages(app: string): string[] {
  const modules = join(app, 'node_modules');
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(modules, name)).map((scoped) => `${name}/${scoped}`) : [name],
    )
    .sort();
}

/** The runtime dependencies of `name` and of theirs, as installed in `app`. */
function dependencyClosure(app: string, name: string, seen = new Set<string>()): Set<string> {
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (seen.has(dependency)) continue;
    seen.add(dependency);
    dependencyClosure(app, dependency, seen);
  }
  return seen;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

let folder: string;
let tarball: string;
let app: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-client-'));
  tarball = (await succeed(process.execPath, ['scripts/pack-client.mjs', '--out', folder], root)).trim();
  // An empty project as the guide makes one.
  app = join(folder, 'my-app');
  mkdirSync(app);
  await succeed('npm', ['init', '-y'], app);
  await succeed('npm', ['pkg', 'set', 'type=module'], app);
  await succeed('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], app);
}, INSTALL_TIMEOUT);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('npm run pack:client', () => {
  it('packs store-orders-client at the one version, and prints the tarball path alone', () => {
    expect(tarball).toBe(join(folder, `store-orders-client-${rootManifest.version}.tgz`));
    expect(existsSync(tarball)).toBe(true);
  });

  it("carries the built client, both versions' generated types, a README, the LICENSE and the CHANGELOG, nothing else", () => {
    const installed = join(app, 'node_modules/store-orders-client');
    expect(filesUnder(installed)).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'dist/client.d.ts',
      'dist/client.js',
      'generated/openapi.d.ts',
      'generated/openapi.v2.d.ts',
      'package.json',
    ]);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: 'store-orders-client',
      version: rootManifest.version,
      license: 'MIT',
      type: 'module',
      exports: { '.': { types: './dist/client.d.ts', import: './dist/client.js' } },
      dependencies: { 'openapi-fetch': rootManifest.dependencies['openapi-fetch'] },
    });
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toContain('MIT License');
    expect(readFileSync(join(installed, 'README.md'), 'utf8')).toContain(clientExample(section));
  });
});

describe('store-orders-client, installed into an empty folder', () => {
  it('brings only openapi-fetch and what it needs: no server code, no native module', () => {
    const installed = installedPackages(app);
    expect(installed).not.toContain('fastify');
    expect(installed).not.toContain('better-sqlite3');
    expect(installed).toEqual(['store-orders-client', ...dependencyClosure(app, 'store-orders-client')].sort());
    expect(installed).toContain('openapi-fetch');
  });

  it(
    "compiles the guide's example as the guide says, strictly, and runs it against a live server: v1's list and v2's filtered walk print what the guide shows",
    async () => {
      writeFileSync(join(app, 'list-orders.ts'), clientExample(section));
      // The guide's own compile line, with this repository's TypeScript and Node types standing in for the
      // ones it has the user install.
      const compile = /^npx tsc (.+)$/m.exec(section)?.[1];
      expect(compile, 'the guide shows how to compile the example').toBeDefined();
      const args = [...(compile ?? '').split(' '), '--typeRoots', join(root, 'node_modules/@types')];
      expect(args).toContain('--strict');
      await succeed(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], app);

      const server = await startServer();
      try {
        const { key } = await createKey(server.store);
        // The orders as the README's walkthrough leaves them: 1 cancelled, 2 shipped, 3 and 4 pending.
        const first = await server.store.orders.addOrder({ petId: 7, quantity: 2 });
        await server.store.orders.addOrder({ petId: 3, quantity: 1, status: 'shipped' });
        await server.store.orders.addOrder({ petId: 5, quantity: 1 });
        await server.store.orders.addOrder({ petId: 9, quantity: 4 });
        expect(await server.store.orders.cancelOrder(first.id, await callerFor(server.store))).toBe('cancelled');
        const url = server.baseUrl;
        const listed = await run(process.execPath, ['list-orders.js'], app, {
          STORE_ORDERS_URL: url,
          STORE_ORDERS_KEY: key,
        });
        expect(listed.stderr).toBe('');
        const shown = /^```ts\n[\s\S]*?^```[\s\S]*?^```text\n([\s\S]*?)^```/m.exec(section)?.[1];
        expect(listed.stdout).toBe(shown);
        // v2's walk took more than one page, each asked for with the cursor of the one before.
        expect(listed.stdout.match(/^pending: /gm)).toHaveLength(2);

        const refused = await run(process.execPath, ['list-orders.js'], app, {
          STORE_ORDERS_URL: url,
          STORE_ORDERS_KEY: `sok_${'0'.repeat(39)}`,
        });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('401 unauthorized: A valid API key is required');

        const keyless = await run(process.execPath, ['list-orders.js'], app, {
          STORE_ORDERS_URL: url,
          STORE_ORDERS_KEY: '',
        });
        expect(keyless.code).toBe(1);
        expect(keyless.stderr).toContain('Set STORE_ORDERS_KEY');
      } finally {
        await server.close();
      }
    },
    INSTALL_TIMEOUT,
  );
});
