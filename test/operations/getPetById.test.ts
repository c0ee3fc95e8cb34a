import { afterEach, describe, expect, it } from 'vitest';
import { apiClient, rawRequest } from '../support/http.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

const SUNSET = new Date('2027-06-30T23:59:59Z');
let server: TestServer;
afterEach(() => server.close());

function expectDeprecationHeaders(headers: Headers) {
  expect(headers.get('deprecation')).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
  expect(headers.get('sunset')).toBe('Wed, 30 Jun 2027 23:59:59 GMT');
  expect(headers.get('link')).toContain('rel="deprecation"');
  expect(headers.get('link')).toContain('rel="sunset"');
}

describe('getPetById before its sunset', () => {
  it('returns the pet with Deprecation, Sunset and Link headers', async () => {
    server = await startServer({ now: () => new Date('2026-11-23T00:00:00Z') });
    const { key } = await createKey(server.store);
    const pet = await server.store.pets.addPet('Rex');
    const { data, response } = await apiClient(server.baseUrl, key).GET('/pets/{petId}', {
      params: { path: { petId: pet.id } },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual({ id: pet.id, name: 'Rex' });
    expectDeprecationHeaders(response.headers);
  });

  it('answers 404 for a missing pet, still with the deprecation headers', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    const { error, response } = await apiClient(server.baseUrl, key).GET('/pets/{petId}', {
      params: { path: { petId: 99 } },
    });
    expect(response.status).toBe(404);
    expect(error?.code).toBe('pet_not_found');
    expectDeprecationHeaders(response.headers);
  });

  it('carries the deprecation headers on 401 and 400 too', async () => {
    server = await startServer();
    const unauthorized = await rawRequest(`${server.baseUrl}/v1/pets/1`);
    expect(unauthorized.status).toBe(401);
    expectDeprecationHeaders(unauthorized.headers);

    const { key } = await createKey(server.store);
    const invalid = await rawRequest(`${server.baseUrl}/v1/pets/seven`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(invalid.status).toBe(400);
    expectDeprecationHeaders(invalid.headers);
  });

  it('carries the deprecation headers on a malformed percent-escape, answered before routing', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    for (const path of ['/v1/pets/%zz', '/v1/pets/%E0%A4%A', '/v1/pets/%zz?x=1']) {
      const response = await rawRequest(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status, path).toBe(400);
      expect(response.json, path).toMatchObject({ status: 400 });
      expectDeprecationHeaders(response.headers);
    }
    // Not getPetById: another method, another path.
    for (const [method, path] of [
      ['DELETE', '/v1/pets/%zz'],
      ['GET', '/v1/pets/%zz/x'],
      ['DELETE', '/v1/store/orders/%zz'],
    ] as const) {
      const response = await rawRequest(`${server.baseUrl}${path}`, { method });
      expect(response.status, path).toBe(400);
      expect(response.headers.get('deprecation'), `${method} ${path}`).toBeNull();
    }
  });

  it('still answers at the sunset instant itself', async () => {
    server = await startServer({ now: () => SUNSET });
    const { key } = await createKey(server.store);
    const pet = await server.store.pets.addPet('Rex');
    const response = await rawRequest(`${server.baseUrl}/v1/pets/${pet.id}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
  });
});

describe('getPetById after its sunset', () => {
  it('answers 410 Gone with the Error body and the deprecation headers, key or not', async () => {
    server = await startServer({ now: () => new Date(SUNSET.getTime() + 1000) });
    const { key } = await createKey(server.store);
    const pet = await server.store.pets.addPet('Rex');
    for (const headers of [{ Authorization: `Bearer ${key}` }, {}]) {
      const response = await rawRequest(`${server.baseUrl}/v1/pets/${pet.id}`, { headers });
      expect(response.status).toBe(410);
      expect(response.json).toMatchObject({ code: 'gone', status: 410 });
      expectDeprecationHeaders(response.headers);
    }
  });

  it('answers 410 to a malformed percent-escape in its path too', async () => {
    server = await startServer({ now: () => new Date(SUNSET.getTime() + 1000) });
    const response = await rawRequest(`${server.baseUrl}/v1/pets/%zz`);
    expect(response.status).toBe(410);
    expect(response.json).toMatchObject({ code: 'gone', status: 410 });
    expectDeprecationHeaders(response.headers);
  });

  it('leaves the operations that are not deprecated alone', async () => {
    server = await startServer({ now: () => new Date('2030-01-01T00:00:00Z') });
    const { key } = await createKey(server.store);
    const response = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBeNull();
  });
});
