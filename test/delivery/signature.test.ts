// The signature of a delivery is the Standard Webhooks one: the specification's own package verifies it,
// and refuses it for another body, another id, another secret or an old timestamp. A secret that is not
// `whsec_` and the base64 of 24 to 64 bytes is refused, without the message repeating it.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/configError.js';
import { newSecret, parseSecret, signedHeaders } from '../../src/delivery/signature.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const key = parseSecret(secret, 'MESSAGE_WEBHOOK_SECRET');
const body = JSON.stringify({ id: 'msg_1', message: 'hé \u0000 🐶', status: 'queued', createdAt: '2026-01-01T00:00:00.000Z', account: 'acme' });

describe('signedHeaders', () => {
  it('signs as Standard Webhooks says: standardwebhooks verifies it and gives the payload back', () => {
    const headers = signedHeaders([key], 'msg_1', new Date(), body);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toMatch(/^[0-9]+$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('is refused for another body, id, secret, or a timestamp older than the tolerance', () => {
    const headers = signedHeaders([key], 'msg_1', new Date(), body);
    expect(() => new Webhook(secret).verify(body.replace('hé', 'he'), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, headers)).toThrow();
    const old = signedHeaders([key], 'msg_1', new Date(Date.now() - 10 * 60_000), body);
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });
});

describe('signedHeaders with two secrets, as during a rotation', () => {
  it('signs with each: standardwebhooks verifies the delivery under either, and under no other', () => {
    const [old, current] = [newSecret(), newSecret()];
    const headers = signedHeaders([parseSecret(old, 'old'), parseSecret(current, 'current')], 'evt_1', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });
});

describe('newSecret', () => {
  it('makes a secret parseSecret takes, of 32 bytes, a new one each time', () => {
    const secrets = Array.from({ length: 100 }, () => newSecret());
    expect(new Set(secrets).size).toBe(100);
    for (const secret of secrets) expect(parseSecret(secret, 'V')).toHaveLength(32);
  });
});

describe('parseSecret', () => {
  it('takes whsec_ and the base64 of 24 to 64 bytes', () => {
    expect(parseSecret(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, 'V')).toEqual(Buffer.alloc(24, 1));
    expect(parseSecret(`whsec_${Buffer.alloc(64, 2).toString('base64')}`, 'V')).toEqual(Buffer.alloc(64, 2));
  });

  it.each([
    ['no prefix', Buffer.alloc(32).toString('base64')],
    ['not base64', 'whsec_not*base64!'],
    ['too short', `whsec_${Buffer.alloc(23).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65).toString('base64')}`],
    ['empty', 'whsec_'],
  ])('refuses one with %s, naming the variable and never the secret', (_, refused) => {
    expect(() => parseSecret(refused, 'MESSAGE_WEBHOOK_SECRET')).toThrow(ConfigError);
    expect(() => parseSecret(refused, 'MESSAGE_WEBHOOK_SECRET')).toThrow(/^MESSAGE_WEBHOOK_SECRET must /);
    try {
      parseSecret(refused, 'MESSAGE_WEBHOOK_SECRET');
    } catch (error) {
      const encoded = refused.replace(/^whsec_/, '');
      if (encoded.length > 0) expect((error as Error).message).not.toContain(encoded);
    }
  });
});
