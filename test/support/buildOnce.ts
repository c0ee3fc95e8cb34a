// vitest global setup: process and CLI tests run the built files, exactly as `npm start` and the bin do;
// the build is `npm run build`'s own script, so that the built server reads the contract as the build
// parsed it, and so that its stamp stays true for `npm start`'s check (scripts/build.mjs). It builds only
// when a selected test file runs dist/ (test/support/setupNeeds.ts), and only when dist/ is not already
// what a build of the tree would write: `npm test` builds once, before its vitest runs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runNeeds } from './setupNeeds.js';

export default function buildOnce(): void {
  if (!runNeeds('build')) return;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
