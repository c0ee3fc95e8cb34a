// Where the server sends a person who opens its address or the API root: to /docs and to the contract, as
// written (OpenAPI 3.0) and as its OpenAPI 3.1 rendition.
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { rawRequest } from '../support/http.js';
import { useServer } from '../support/server.js';

const t = useServer();

const DOCS_LINK = '</docs>; rel="service-doc"; type="text/html"';
const contractLinks = (root: string) =>
  `<${root}/openapi.yaml>; rel="service-desc"; type="application/yaml", ` +
  `<${root}/openapi.json>; rel="service-desc"; type="application/json", ` +
  `<${root}/openapi.3.1.yaml>; rel="service-desc"; type="application/yaml", ` +
  `<${root}/openapi.3.1.json>; rel="service-desc"; type="application/json"`;
const contractFiles = (root: string) => [
  `${root}/openapi.yaml`,
  `${root}/openapi.json`,
  `${root}/openapi.3.1.yaml`,
  `${root}/openapi.3.1.json`,
];

describe('GET /', () => {
  it('answers a small JSON index naming each API root, /docs and the contracts, without a key', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.json).toEqual({
      name: 'store-orders',
      version: VERSION,
      // As before v2 was served.
      api: '/v1',
      docs: '/docs',
      contract: contractFiles('/v1'),
      versions: [
        { api: '/v1', contract: contractFiles('/v1') },
        { api: '/v2', contract: contractFiles('/v2') },
      ],
    });
    expect(response.headers.get('link')).toBe(`${DOCS_LINK}, ${contractLinks('/v1')}, ${contractLinks('/v2')}`);
    // Each pointer leads somewhere.
    for (const path of ['/docs', ...contractFiles('/v1'), ...contractFiles('/v2')]) {
      expect((await fetch(`${t.server.baseUrl}${path}`)).status, path).toBe(200);
    }
  });

  it('answers HEAD as GET without the body, and other methods with 405', async () => {
    const head = await rawRequest(`${t.server.baseUrl}/`, { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([200, '']);
    const post = await rawRequest(`${t.server.baseUrl}/`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});

describe('the API root itself', () => {
  it.each([
    ['GET', '/v1'],
    ['GET', '/v1/'],
    ['POST', '/v1'],
    ['DELETE', '/v1/'],
    ['GET', '/v2'],
    ['GET', '/v2/'],
    ['PATCH', '/v2'],
  ])('answers %s %s with 404 and the Error body, pointing to /docs and its contract', async (method, path) => {
    const response = await rawRequest(`${t.server.baseUrl}${path}`, { method });
    const root = path.replace(/\/$/, '');
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      code: 'not_found',
      message: `${root} is the API root, not an operation: its operations are described at /docs and in ${root}/openapi.yaml (OpenAPI 3.1: ${root}/openapi.3.1.yaml)`,
      status: 404,
    });
    expect(response.headers.get('link')).toBe(`${DOCS_LINK}, ${contractLinks(root)}`);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['/v1/nope', '/v2/nope', '/v2/pets/1'])('leaves any other unknown path, such as %s, the plain 404', async (path) => {
    const response = await rawRequest(`${t.server.baseUrl}${path}`);
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ code: 'not_found', message: 'No such path', status: 404 });
    expect(response.headers.get('link')).toBeNull();
  });
});

describe('/docs/', () => {
  it('redirects to /docs', async () => {
    const response = await fetch(`${t.server.baseUrl}/docs/`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/docs');
    const followed = await fetch(`${t.server.baseUrl}/docs/`);
    expect([followed.status, followed.url]).toEqual([200, `${t.server.baseUrl}/docs`]);
  });
});
