// Each backend's driver is loaded only when a database of that backend is opened: a server or a command on
// PostgreSQL never loads better-sqlite3 (a native module), nor one on SQLite pg.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

/** The drivers a fresh Node process has loaded after running `code` (an ES module) from the built dist/. */
function driversLoadedAfter(code: string): string[] {
  const script = `${code}
const cache = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);
console.log(JSON.stringify(['better-sqlite3', 'pg'].filter((name) => cache.some((path) => path.includes(\`/node_modules/\${name}/\`)))));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })) as string[];
}

describe("the backends' drivers", () => {
  it('are not loaded by reading the configuration and the backends, as every command does', () => {
    expect(driversLoadedAfter(`await import('./dist/store/open.js'); await import('./dist/cli/commandLine.js');`)).toEqual([]);
  });

  it('are loaded, each alone, when a store of its backend is opened', () => {
    expect(driversLoadedAfter(`await import('./dist/store/sqlite/repositories.js');`)).toEqual(['better-sqlite3']);
    expect(driversLoadedAfter(`await import('./dist/store/postgres/repositories.js');`)).toEqual(['pg']);
  });
});
