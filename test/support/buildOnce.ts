// vitest global setup: process and CLI tests run the built files, exactly as `npm start` and the bin do;
// the build is `npm run build`'s steps, so that the built server reads the contract as the build parsed it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function buildOnce(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/build-contract.mjs'], { cwd: root, stdio: 'inherit' });
}
