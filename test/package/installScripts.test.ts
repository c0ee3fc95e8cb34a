// npm 11 ends an install with a warning that lists every dependency whose install scripts package.json's
// allowScripts does not cover, and npm 12 skips those scripts. Every one is decided here instead: the
// better-sqlite3 build runs, and nothing else runs that the project has not chosen.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};
const allowScripts = pkg.allowScripts ?? {};

/** The names of the locked packages that have install scripts, once each. */
function withInstallScripts(): string[] {
  const names = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => path.replace(/^.*node_modules\//, ''));
  return [...new Set(names)].sort();
}

describe('package.json allowScripts', () => {
  // By name, not name@version: npm matches a pinned entry only against a lockfile's resolved URL, and a
  // lockfile written with omit-lockfile-registry-resolved has none.
  it('decides, by name, every locked package that has install scripts (npm ci prints no install-scripts warning)', () => {
    expect(withInstallScripts().filter((name) => !(name in allowScripts))).toEqual([]);
  });

  it('allows the better-sqlite3 build, which the server needs', () => {
    expect(allowScripts['better-sqlite3']).toBe(true);
  });

  it('names no package that no longer has install scripts', () => {
    expect(Object.keys(allowScripts).filter((name) => !withInstallScripts().includes(name))).toEqual([]);
  });
});
