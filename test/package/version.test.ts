// One version: the server package's, the contract's info.version, the client package's, the CHANGELOG's
// newest release and what /healthz reports are one and the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clientManifest } from '../../scripts/pack-client.mjs';
import { VERSION } from '../../src/version.js';
import { rawRequest } from '../support/http.js';
import { useServer } from '../support/server.js';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  version: string;
  license: string;
  engines: { node: string };
  dependencies: Record<string, string>;
};
const contract = parse(readFileSync(new URL('openapi.yaml', root), 'utf8')) as { info: { version: string } };

describe('the one version', () => {
  it("is package.json's, openapi.yaml's info.version and the client package's", () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(contract.info.version).toBe(pkg.version);
    expect(VERSION).toBe(pkg.version);
    expect(clientManifest(pkg).version).toBe(pkg.version);
  });

  it('is the newest release in CHANGELOG.md, below [Unreleased]', () => {
    const changelog = readFileSync(new URL('CHANGELOG.md', root), 'utf8');
    const releases = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map(
      ([, version, date]) => ({ version, date }),
    );
    expect(releases[0]).toEqual({ version: 'Unreleased', date: undefined });
    expect(releases[1]).toEqual({ version: pkg.version, date: expect.stringMatching(/^\d{4}-/) });
  });

  describe('/healthz', () => {
    const t = useServer();

    it('reports it beside its status, without a key', async () => {
      const response = await rawRequest(`${t.server.baseUrl}/healthz`);
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ status: 'ok', version: pkg.version });
    });
  });
});
