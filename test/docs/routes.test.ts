// /docs over HTTP: no key, a strict Content-Security-Policy, assets cached by name, and the Error body.
import { request } from 'node:http';
import { Script } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { contractLinks, INIT_SCRIPT } from '../../src/docs/page.js';
import { rawRequest } from '../support/http.js';
import { useServer } from '../support/server.js';

const t = useServer();

async function assetPaths(): Promise<string[]> {
  const html = await (await fetch(`${t.server.baseUrl}/docs`)).text();
  return [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((match) => match[1] as string);
}

/** node:http rather than fetch, which would decode the body and hide how it was sent. */
function getRaw(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
    (resolve, reject) => {
      request(`${t.server.baseUrl}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      })
        .on('error', reject)
        .end();
    },
  );
}

describe('GET /docs', () => {
  it('serves the reference page without a key, allowing scripts and connections to this server only', async () => {
    const response = await fetch(`${t.server.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).not.toMatch(/https?:|\*/);
    expect(await assetPaths()).toEqual([
      expect.stringMatching(/^\/docs\/assets\/scalar\.[\w-]+\.js$/),
      expect.stringMatching(/^\/docs\/assets\/init\.[\w-]+\.js$/),
    ]);
  });

  it('serves each asset under a name that changes with its content, to be cached for a year', async () => {
    for (const path of await assetPaths()) {
      const response = await fetch(`${t.server.baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('sends the renderer gzip-encoded to a client that accepts gzip, and as it is to one that does not', async () => {
    const [renderer = ''] = await assetPaths();
    const plain = await getRaw(renderer, {});
    const gzipped = await getRaw(renderer, { 'Accept-Encoding': 'br, gzip;q=0.8' });
    const refused = await getRaw(renderer, { 'Accept-Encoding': 'gzip;q=0' });

    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toContain('createApiReference');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('answers an unknown asset with 404 and the Error body', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/docs/assets/scalar.0000000000000000.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.json).toEqual({ code: 'not_found', message: 'No such path', status: 404 });
  });
});

describe("the page's own script", () => {
  it('is JavaScript, which compiles', () => {
    expect(() => new Script(INIT_SCRIPT)).not.toThrow();
  });

  it("opens each version's introduction with links to its contract's files, OpenAPI 3.0 and 3.1", () => {
    expect(contractLinks('/v2')).toBe(
      'This contract as a file: OpenAPI 3.0 [YAML](/v2/openapi.yaml), [JSON](/v2/openapi.json); ' +
        'OpenAPI 3.1 [YAML](/v2/openapi.3.1.yaml), [JSON](/v2/openapi.3.1.json).',
    );
    expect(INIT_SCRIPT).toContain(JSON.stringify(contractLinks('/v1')));
  });
});
