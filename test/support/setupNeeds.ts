// Which global set-ups a run needs, from the test files it selected: one unit test file alone should not
// wait for a build, two SDK generations and Prism. A file needs dist/ built when it, or a module of test/ it
// imports, names dist/ or bench/ or starts a process (the server, the CLI, scripts and npm all run as
// processes); it needs the hey-api SDKs when it imports them; it needs Prism (the pass through Prism runs
// it again) when it sends requests through the contract client, test/support/http.ts, the one client the
// pass puts Prism in front of. The sources are read, so a new test file needs no declaration. src/ is not
// followed: the tests run its modules in-process, from source.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestSpecification } from 'vitest/node';

export type SetUp = 'build' | 'heyApiSdk' | 'prism';

/** What test/support/http.ts exports that sends a request through validatingFetch, which Prism stands in front of. */
export const CONTRACT_CLIENT = ['validatingFetch', 'apiClient', 'apiClientV2', 'rawRequest'];

const SIGNS: Record<SetUp, RegExp> = {
  build: /\bdist\/|\bbench\/|node:child_process/,
  heyApiSdk: /hey-api-sdk/,
  // A value import (`import type { … }` sends nothing) of the contract client from test/support/http.ts.
  prism: new RegExp(`\\bimport\\s*\\{[^}]*\\b(?:${CONTRACT_CLIENT.join('|')})\\b[^}]*\\}\\s*from\\s*['"][^'"]*\\/http\\.js['"]`),
};

// The reporter below and the global set-ups are loaded apart (the set-ups through vitest's module runner),
// so the selection is handed over on the process's global object.
const SELECTED = Symbol.for('store-orders.selectedTestFiles');
type WithSelection = typeof globalThis & { [SELECTED]?: string[] };

/** A reporter that records the test files of the run; vitest reports them before the global set-ups run. */
export const recordSelectedFiles: Reporter = {
  onTestRunStart(specifications: readonly TestSpecification[]) {
    (globalThis as WithSelection)[SELECTED] = specifications.map((specification) => specification.moduleId);
  },
};

const TEST_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The file an import names: `./x.js` is `./x.ts` in the sources. */
function importedFile(from: string, specifier: string): string | undefined {
  const path = resolve(dirname(from), specifier);
  const candidates = [path, path.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => existsSync(candidate) && /\.(?:ts|mjs|js)$/.test(candidate));
}

// The set-ups themselves (a test may import a constant from one) start what they start for the run, not
// for the file that imports them.
const SET_UP_MODULES = new Set(
  ['buildOnce.ts', 'generateHeyApiSdk.ts', 'prismProxy.ts', 'setupNeeds.ts'].map((name) =>
    fileURLToPath(new URL(name, import.meta.url)),
  ),
);

/** The file and every module under `within` it imports, directly or not, but for the set-ups'. */
function importClosure(file: string, within: string): string[] {
  const seen = new Set<string>([file]);
  for (const current of seen) {
    for (const [, specifier] of readFileSync(current, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const imported = importedFile(current, specifier as string);
      if (imported?.startsWith(within) && !SET_UP_MODULES.has(imported)) seen.add(imported);
    }
  }
  return [...seen];
}

/** Whether the test file (an absolute path) needs `setUp`: it, or a module of test/ it imports, shows the sign. */
export function fileNeeds(file: string, setUp: SetUp): boolean {
  return importClosure(file, TEST_ROOT).some((module) => SIGNS[setUp].test(readFileSync(module, 'utf8')));
}

/**
 * Whether the run needs `setUp`. When the selection is unknown (vitest asked for something other than a
 * run, or a --reporter on the command line replaced the recorder), every set-up runs.
 */
export function runNeeds(setUp: SetUp): boolean {
  const selected = (globalThis as WithSelection)[SELECTED];
  if (selected === undefined) return true;
  return selected.some((file) => fileNeeds(file, setUp));
}

/** The test files under test/, relative to the project's root (`test/…/x.test.ts`), that show `sign`. */
export function testFilesShowing(sign: RegExp): string[] {
  const projectRoot = dirname(TEST_ROOT.replace(/\/$/, ''));
  return readdirSync(TEST_ROOT, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => join('test', path))
    .filter((path) => importClosure(join(projectRoot, path), TEST_ROOT).some((module) => sign.test(readFileSync(module, 'utf8'))))
    .sort();
}

/** The test files that need `setUp`. */
export const testFilesNeeding = (setUp: SetUp): string[] => testFilesShowing(SIGNS[setUp]);
