// `npm start` builds only when dist/ is not what a build of the current tree would write
// (scripts/build.mjs --if-stale): an unchanged tree restarts without a build, and a changed one is never
// served from a stale dist/. Run on a copy of the tree, whose dist/ no other test reads.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Hang guards: tsc takes minutes on a machine busy with other work.
const BUILD_TIMEOUT = 600_000;
let copy: string;

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'store-orders-build-'));
  const entries = ['src', 'generated', 'openapi.yaml', 'openapi.v2.yaml', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
  const scripts = ['scripts/build.mjs', 'scripts/build-contract.mjs', 'scripts/contracts.mjs'];
  for (const entry of [...entries, 'package-lock.json', ...scripts]) {
    cpSync(join(root, entry), join(copy, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

function buildScript(flag: '--if-stale' | '--check') {
  return spawnSync(process.execPath, ['scripts/build.mjs', flag], { cwd: copy, encoding: 'utf8' });
}

/** What the build said, on stderr (its stdout is left to the scripts that build first). */
function buildIfStale(): string {
  const result = buildScript('--if-stale');
  expect(result.status, result.stdout + result.stderr).toBe(0);
  return result.stderr;
}

/** Whether --if-stale would build, asked without building. */
const isStale = () => buildScript('--check').status === 1;

/** Every file under dist/ with its modification time. */
function distTimes(): Record<string, number> {
  const dist = join(copy, 'dist');
  const files = (readdirSync(dist, { recursive: true }) as string[]).filter((file) =>
    statSync(join(dist, file)).isFile(),
  );
  return Object.fromEntries(files.sort().map((file) => [file, statSync(join(dist, file)).mtimeMs]));
}

const built = (file: string) => readFileSync(join(copy, 'dist', file), 'utf8');

describe('scripts/build.mjs --if-stale (npm start)', () => {
  it(
    'builds everything in a tree that has no dist/',
    () => {
      expect(existsSync(join(copy, 'dist'))).toBe(false);
      buildIfStale();
      const contracts = ['openapi', 'openapi.3.1', 'openapi.v2', 'openapi.v2.3.1'].flatMap((name) => [
        `${name}.json`,
        `${name}.yaml.sha256`,
      ]);
      for (const file of ['main.js', 'cli/main.js', 'docs/assets.js', ...contracts]) {
        expect(existsSync(join(copy, 'dist', file)), file).toBe(true);
      }
    },
    BUILD_TIMEOUT,
  );

  it('writes nothing in dist/ when nothing changed since the last build', () => {
    const before = distTimes();
    expect(buildIfStale()).toContain('nothing to build');
    expect(distTimes()).toEqual(before);
  });

  it('counts dist/ stale while any input differs from the last build, and current again once it is restored', () => {
    const inputs = ['openapi.yaml', 'openapi.v2.yaml', 'generated/openapi.d.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
    const more = ['generated/openapi.3.1.yaml', 'package-lock.json', 'src/docs/page.ts', 'scripts/build-contract.mjs', 'scripts/contracts.mjs'];
    for (const input of [...inputs, ...more]) {
      const original = readFileSync(join(copy, input));
      appendFileSync(join(copy, input), '\n');
      expect(isStale(), `${input} changed`).toBe(true);
      writeFileSync(join(copy, input), original);
      expect(isStale(), `${input} restored`).toBe(false);
    }
  });

  it('counts dist/ stale when an output was written since the last build (a tsc run by hand, say) or is gone', () => {
    const original = built('config.js');
    writeFileSync(join(copy, 'dist/config.js'), original);
    expect(isStale()).toBe(true);
    rmSync(join(copy, 'dist/config.js'));
    expect(isStale()).toBe(true);
  });

  it(
    'builds again when a source file changed, and the output has the change',
    () => {
      appendFileSync(join(copy, 'src/version.ts'), "export const BUILD_TEST_MARK = 'changed source';\n");
      expect(buildIfStale()).not.toContain('nothing to build');
      expect(built('version.js')).toContain('changed source');
      expect(existsSync(join(copy, 'dist/config.js'))).toBe(true);
      expect(isStale()).toBe(false);
    },
    BUILD_TIMEOUT,
  );
});
