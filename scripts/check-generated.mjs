// Fails when generated/openapi.d.ts is not what `npm run generate` would write from openapi.yaml now.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const committed = join(root, 'generated', 'openapi.d.ts');
const scratch = mkdtempSync(join(tmpdir(), 'store-orders-generated-'));
const fresh = join(scratch, 'openapi.d.ts');
try {
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'openapi-typescript'),
    ['openapi.yaml', '-o', fresh],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) {
    console.error(result.stdout, result.stderr);
    process.exit(1);
  }
  let current = '';
  try {
    current = readFileSync(committed, 'utf8');
  } catch {
    // A missing file is reported as stale below.
  }
  if (current !== readFileSync(fresh, 'utf8')) {
    console.error(
      'generated/openapi.d.ts is stale: run `npm run generate` and commit the result with openapi.yaml.',
    );
    process.exit(1);
  }
  console.log('generated/openapi.d.ts matches openapi.yaml');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
