import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
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

describe('npm run check:generated', () => {
  it('passes when generated/ matches both contracts', () => {
    const result = check();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('generated/openapi.v2.d.ts matches openapi.v2.yaml');
  });

  it('fails when openapi.yaml changed and generated/ was not regenerated', () => {
    appendFileSync(join(copy, 'openapi.yaml'), '\n    Extra:\n      type: string\n');
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('generated/openapi.d.ts is stale');
  });

  it('fails when openapi.v2.yaml changed and its types were not regenerated', () => {
    appendFileSync(join(copy, 'openapi.v2.yaml'), '\n    Extra:\n      type: string\n');
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('generated/openapi.v2.d.ts is stale');
    expect(result.stderr).not.toContain('generated/openapi.d.ts is stale');
  });
});
