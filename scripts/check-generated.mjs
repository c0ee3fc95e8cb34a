// Fails when a file of generated/ is not what `npm run generate` would write from its contract now: the
// contract's types, its OpenAPI 3.1 rendition, or the rendition's types (scripts/generate.mjs).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'store-orders-generated-'));
let stale = false;
try {
  for (const { file, from } of generate(scratch)) {
    let current = '';
    try {
      current = readFileSync(join(root, file), 'utf8');
    } catch {
      // A missing file is reported as stale below.
    }
    if (current === readFileSync(join(scratch, file), 'utf8')) {
      console.log(`${file} matches ${from}`);
    } else {
      console.error(`${file} is stale: run \`npm run generate\` and commit the result with ${from}.`);
      stale = true;
    }
  }
} catch (error) {
  console.error(error.message);
  process.exit(1);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (stale) process.exit(1);
