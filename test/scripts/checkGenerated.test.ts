import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let copy: string;
beforeEach(() => {
  copy = mkdtempSync(join(tmpdir(), 'store-orders-drift-'));
  for (const entry of ['openapi.yaml', 'openapi.v2.yaml', 'generated', 'scripts']) {
    cpSync(join(root, entry), join(copy, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
});
afterEach(() => rmSync(copy, { recursive: true, force: true }));

const check = () => spawnSync(process.execPath, [join(copy, 'scripts', 'check-generated.mjs')], { encoding: 'utf8' });

/** A schema more in the copy's `file`, first of its components' schemas. */
function addSchema(file: string): void {
  const path = join(copy, file);
  const text = readFileSync(path, 'utf8');
  expect(text).toContain('\n  schemas:\n');
  writeFileSync(path, text.replace('\n  schemas:\n', '\n  schemas:\n    Extra:\n      type: string\n'));
}

// That it passes on a tree whose generated/ is current is npm test's own check:generated stage, on the real
// tree, every run; the run below names a current file too.
describe('npm run check:generated', () => {
  // Each run regenerates every file (about 10 s of CPU), so one run holds both kinds of staleness: a contract
  // changed without regenerating, and a rendition edited by hand.
  it('fails, naming each stale file, when openapi.yaml changed without regenerating and a 3.1 rendition of openapi.v2.yaml was edited by hand', () => {
    addSchema('openapi.yaml');
    appendFileSync(join(copy, 'generated', 'openapi.v2.3.1.yaml'), '# edited\n');
    const result = check();
    expect(result.status).toBe(1);
    // The change reaches the contract's types, its rendition and the rendition's types.
    expect(result.stderr).toContain('generated/openapi.d.ts is stale');
    expect(result.stderr).toContain('generated/openapi.3.1.yaml is stale');
    expect(result.stderr).toContain('generated/openapi.3.1.d.ts is stale');
    // The edited rendition alone: v2's contract and the types of its rendition are as generated.
    expect(result.stderr).toContain('generated/openapi.v2.3.1.yaml is stale');
    expect(result.stderr).not.toContain('generated/openapi.v2.3.1.d.ts is stale');
    expect(result.stdout).toContain('generated/openapi.v2.d.ts matches openapi.v2.yaml');
  });
});
