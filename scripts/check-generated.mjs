// Fails when a file of generated/ is not what `npm run generate` would write from its contract now.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACTS } from './contracts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'store-orders-generated-'));
let stale = false;
try {
  for (const { document, types } of CONTRACTS) {
    const fresh = join(scratch, basename(types));
    const result = spawnSync(
      join(root, 'node_modules', '.bin', 'openapi-typescript'),
      [document, '-o', fresh],
      { cwd: root, encoding: 'utf8' },
    );
    if (result.status !== 0) {
      console.error(result.stdout, result.stderr);
      process.exit(1);
    }
    let current = '';
    try {
      current = readFileSync(join(root, types), 'utf8');
    } catch {
      // A missing file is reported as stale below.
    }
    if (current === readFileSync(fresh, 'utf8')) {
      console.log(`${types} matches ${document}`);
    } else {
      console.error(`${types} is stale: run \`npm run generate\` and commit the result with ${document}.`);
      stale = true;
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (stale) process.exit(1);
