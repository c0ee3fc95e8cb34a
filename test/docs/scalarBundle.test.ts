// /docs serves Scalar's bundle from the copy committed under generated/ (scripts/update-docs-bundle.mjs):
// that copy must be the published file its source.json names, not an edited or half-replaced one.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scalarBundlePath } from '../../src/docs/scalarBundle.js';

const folder = new URL('../../generated/scalar-api-reference/', import.meta.url);
const source = JSON.parse(readFileSync(new URL('source.json', folder), 'utf8')) as {
  package: string;
  version: string;
  sha256: string;
};

describe("the committed copy of Scalar's bundle", () => {
  it('is the file /docs serves', () => {
    expect(scalarBundlePath()).toBe(new URL('standalone.js', folder).pathname);
  });

  it('is byte for byte the file its source.json names', () => {
    const digest = createHash('sha256').update(readFileSync(scalarBundlePath())).digest('hex');
    expect(digest, `re-run node scripts/update-docs-bundle.mjs ${source.version}`).toBe(source.sha256);
  });
});
