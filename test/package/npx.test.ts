// `npx store-orders` in a checkout, before and after the first build. npx links the project's own bin into
// its cache the first time it runs there and keeps that link: a bin that did not exist yet (dist/ not
// built) was linked as no command at all, and `npx store-orders` then failed in that checkout for good,
// built or not. The checkout here is a copy of the package's files, with an npx cache of its own.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'store-orders-npx-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx store-orders ARGS` in `cwd`, with npx's cache in `cache` and none of an enclosing npm run's settings. */
function npx(cwd: string, cache: string, args: string[]): Promise<Ran> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['store-orders', ...args],
      { cwd, env: { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npx store-orders in a checkout', () => {
  it('says to build before the first build, and runs the CLI once built, whatever ran before', async () => {
    const checkout = join(folder, 'checkout');
    mkdirSync(checkout);
    const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const file of ['package.json', 'package-lock.json', ...Object.values(bin).filter((path) => !path.startsWith('dist/'))]) {
      cpSync(join(root, file), join(checkout, file));
    }
    symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'));
    const cache = join(folder, 'npm-cache');

    const unbuilt = await npx(checkout, cache, ['--version']);
    expect(unbuilt).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining(
        'store-orders: not built yet: run `npm run build` (or `npm start`, which builds) first\n',
      ) as string,
    });

    // The build's output, as `npm run build` leaves it.
    cpSync(join(root, 'dist'), join(checkout, 'dist'), { recursive: true });
    expect(await npx(checkout, cache, ['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    const help = await npx(checkout, cache, ['keys', '--help']);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('keys create') as string });
  }, 120_000);
});
