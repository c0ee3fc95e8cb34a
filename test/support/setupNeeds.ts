// Which global set-ups a run needs, from the test files it selected: one unit test file alone should not
// wait for a build, two SDK generations and Prism. A file needs dist/ built when it, or a module of test/ it
// imports, names dist/ or bench/ or starts a process (the server, the CLI, scripts and npm all run as
// processes); it needs the hey-api SDKs when it imports them. The sources are read, so a new test file
// needs no declaration. src/ is not followed: the tests run its modules in-process, from source.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestSpecification } from 'vitest/node';

export type SetUp = 'build' | 'heyApiSdk';

const SIGNS: Record<SetUp, RegExp> = {
  build: /\bdist\/|\bbench\/|node:child_process/,
  heyApiSdk: /hey-api-sdk/,
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

/**
 * Whether the run needs `setUp`. When the selection is unknown (vitest asked for something other than a
 * run, or a --reporter on the command line replaced the recorder), every set-up runs.
 */
export function runNeeds(setUp: SetUp): boolean {
  const selected = (globalThis as WithSelection)[SELECTED];
  if (selected === undefined) return true;
  return selected.some((file) =>
    importClosure(file, TEST_ROOT).some((module) => SIGNS[setUp].test(readFileSync(module, 'utf8'))),
  );
}
