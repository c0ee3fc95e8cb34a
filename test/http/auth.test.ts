import { describe, expect, it } from 'vitest';
import { generateKey } from '../../src/keys.js';
import type { KeyStore } from '../../src/store/store.js';
import { assertHonoursContract } from '../support/contract.js';
import { send } from '../support/fuzz/rawHttp.js';
import { rawRequest, wrongKey } from '../support/http.js';
import { createKey, useServer } from '../support/server.js';

const t = useServer();

const listWith = (authorization?: string) =>
  rawRequest(
    `${t.server.baseUrl}/v1/store/orders`,
    authorization === undefined ? {} : { headers: { Authorization: authorization } },
  );

function oneCharacterChanged(text: string): string {
  const at = text.length - 10;
  return text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
}

describe('bearer authentication', () => {
  it('accepts the scheme name in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      expect((await listWith(`${scheme} ${t.key}`)).status, scheme).toBe(200);
    }
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a wrong scheme', `Basic ${Buffer.from(`user:${'x'}`).toString('base64')}`],
    ['the key with no scheme', 'KEY'],
    ['an empty token', 'Bearer '],
    ['a token with one character changed', 'CHANGED'],
    ['a well-formed key that was never issued', 'UNKNOWN'],
    ['two tokens', 'Bearer KEY KEY'],
    ['a very long header', `Bearer ${'a'.repeat(8000)}`],
  ])('answers 401 to %s', async (_name, template) => {
    const authorization = template
      ?.replace('CHANGED', `Bearer ${oneCharacterChanged(t.key)}`)
      .replace('UNKNOWN', `Bearer ${generateKey()}`)
      .replaceAll('KEY', t.key);
    const response = await listWith(authorization);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="store-orders"');
    expect(response.json).toEqual({
      code: 'unauthorized',
      message: 'A valid API key is required',
      status: 401,
    });
  });

  it('answers 401 when Authorization is sent twice, even twice the same valid key', async () => {
    // fetch would merge the two fields into one; node:http sends them as two lines.
    for (const values of [[`Bearer ${t.key}`, `Bearer ${t.key}`], [`Bearer ${t.key}`, 'Bearer other']]) {
      const response = await send(t.server.baseUrl, {
        method: 'GET',
        path: '/v1/store/orders',
        headers: { Authorization: values },
      });
      assertHonoursContract(response);
      expect(response.status).toBe(401);
    }
  });

  it('refuses a revoked key on the very next request', async () => {
    expect((await listWith(`Bearer ${t.key}`)).status).toBe(200);
    await t.server.store.keys.revokeKeyById(t.keyId);
    expect((await listWith(`Bearer ${t.key}`)).status).toBe(401);
  });

  it('keeps the other keys of the account working when one is revoked', async () => {
    const other = (await createKey(t.server.store)).key;
    await t.server.store.keys.revokeKeyById(t.keyId);
    expect((await listWith(`Bearer ${other}`)).status).toBe(200);
  });
});

describe('KnownCallers', () => {
  it('refuses a malformed key without looking anything up, and a key seen before only when asked to', async () => {
    const { KnownCallers } = await import('../../src/http/auth.js');
    let lookups = 0;
    const { keys } = t.server.store;
    const countingStore: KeyStore = {
      findActiveKey: (digest) => {
        lookups++;
        return keys.findActiveKey(digest);
      },
      recordKeyUses: (keyIds, at) => keys.recordKeyUses(keyIds, at),
    };
    const callers = new KnownCallers(countingStore);
    const changed = wrongKey(t.key);
    for (const header of [undefined, '', 'Bearer', 'Bearer sok_short', `Bearer ${changed}`, `Basic ${t.key}`]) {
      expect(await callers.identify(header, false)).toBeUndefined();
    }
    expect(lookups).toBe(0);
    const first = await callers.identify(`Bearer ${t.key}`, false);
    expect(first).toMatchObject({ principal: { keyId: t.keyId }, known: false });
    expect(lookups).toBe(1);
    // Seen before: counted against its quota without a lookup, for the operation's own statement to check.
    expect(await callers.identify(`Bearer ${t.key}`, false)).toEqual({ principal: first?.principal, known: true });
    expect(lookups).toBe(1);
    expect(await callers.identify(`Bearer ${t.key}`, true)).toMatchObject({ known: false });
    expect(lookups).toBe(2);
  });
});

describe('every operation', () => {
  it('answers 401 without a key, before looking at anything else', async () => {
    const requests: [string, string][] = [
      ['GET', '/v1/store/orders'],
      ['DELETE', '/v1/store/orders/1'],
      ['POST', '/v1/messages'],
      ['GET', '/v1/pets/1'],
    ];
    for (const [method, path] of requests) {
      const response = await rawRequest(`${t.server.baseUrl}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });
});
