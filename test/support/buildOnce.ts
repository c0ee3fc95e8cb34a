// vitest global setup: process and CLI tests run the built files, exactly as `npm start` and the bin do;
// the build is `npm run build` itself, so that the built server reads the contract as the build parsed it,
// and so that its stamp stays true for `npm start`'s check (scripts/build.mjs).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function buildOnce(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
}
