// The contract as the build ships it: dist/openapi.json is read instead of parsing openapi.yaml, but only
// while it is the JSON of that very YAML; a contract edited after the build is parsed again.
import { hash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type * as Document from '../../src/contract/document.js';

const repository = fileURLToPath(new URL('../..', import.meta.url));
// Inside the repository, so that the copied module finds node_modules as the built one does.
mkdirSync(join(repository, 'test-artifacts'), { recursive: true });
const root = mkdtempSync(join(repository, 'test-artifacts', 'parsed-contract-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the contract parsed by the build', () => {
  it('is used while it matches openapi.yaml, and not once openapi.yaml has changed', async () => {
    mkdirSync(join(root, 'dist', 'contract'), { recursive: true });
    for (const file of ['document.js', 'document.js.map']) {
      copyFileSync(join(repository, 'dist', 'contract', file), join(root, 'dist', 'contract', file));
    }
    const yamlText = readFileSync(join(repository, 'openapi.yaml'), 'utf8');
    const parsed = parse(yamlText) as { info: Record<string, unknown> };
    // A mark the YAML does not have: only the build's JSON can bring it.
    const built = JSON.stringify({ ...parsed, info: { ...parsed.info, title: 'parsed by the build' } });
    writeFileSync(join(root, 'openapi.yaml'), yamlText);
    writeFileSync(join(root, 'dist', 'openapi.json'), built);
    writeFileSync(join(root, 'dist', 'openapi.yaml.sha256'), hash('sha256', yamlText));
    const { loadContract } = (await import(
      pathToFileURL(join(root, 'dist', 'contract', 'document.js')).href
    )) as typeof Document;

    const fromBuild = loadContract();
    expect(fromBuild.document.info.title).toBe('parsed by the build');
    expect(fromBuild.jsonText).toBe(built);

    const edited = yamlText.replace(/^ {2}title: .*$/m, '  title: edited after the build');
    expect(edited).not.toBe(yamlText);
    writeFileSync(join(root, 'openapi.yaml'), edited);
    const fromYaml = loadContract();
    expect(fromYaml.document.info.title).toBe('edited after the build');
    expect(fromYaml.yamlText).toBe(edited);
  });
});
