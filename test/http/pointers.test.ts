// Where the server sends a person who opens its address or the API root: to /docs and to the contract.
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { rawRequest } from '../support/http.js';
import { useServer } from '../support/server.js';

const t = useServer();

const LINKS =
  '</docs>; rel="service-doc"; type="text/html", ' +
  '</v1/openapi.yaml>; rel="service-desc"; type="application/yaml", ' +
  '</v1/openapi.json>; rel="service-desc"; type="application/json"';

describe('GET /', () => {
  it('answers a small JSON index naming the API root, /docs and the contract, without a key', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.json).toEqual({
      name: 'store-orders',
      version: VERSION,
      api: '/v1',
      docs: '/docs',
      contract: ['/v1/openapi.yaml', '/v1/openapi.json'],
    });
    expect(response.headers.get('link')).toBe(LINKS);
    // Each pointer leads somewhere.
    for (const path of ['/docs', '/v1/openapi.yaml', '/v1/openapi.json']) {
      expect((await fetch(`${t.server.baseUrl}${path}`)).status).toBe(200);
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
  ])('answers %s %s with 404 and the Error body, pointing to /docs and the contract', async (method, path) => {
    const response = await rawRequest(`${t.server.baseUrl}${path}`, { method });
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      code: 'not_found',
      message:
        '/v1 is the API root, not an operation: its operations are described at /docs and in /v1/openapi.yaml',
      status: 404,
    });
    expect(response.headers.get('link')).toBe(LINKS);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves any other unknown path the plain 404', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/nope`);
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
