// The delivery's settings: their documented defaults; an endpoint only with both its URL (http or https, no
// user part) and its secret; and no message that repeats the secret or the URL, whose query or user part
// may hold one.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/configError.js';
import { refusalOf } from '../../src/delivery/addresses.js';
import { describeEndpoint, loadClientEndpointSettings, loadDeliverySettings } from '../../src/delivery/settings.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;

describe('the delivery settings', () => {
  it('have the documented defaults, and no endpoint without MESSAGE_WEBHOOK_URL (a secret alone is unused)', () => {
    const defaults = {
      retry: { attempts: 15, maxAgeMs: 86_400_000, firstDelayMs: 5_000, maxDelayMs: 3_600_000 },
      timeoutMs: 10_000,
      retentionMs: 30 * 86_400_000,
    };
    expect(loadDeliverySettings({})).toEqual(defaults);
    expect(loadDeliverySettings({ MESSAGE_WEBHOOK_URL: '', MESSAGE_WEBHOOK_SECRET: secret })).toEqual(defaults);
  });

  it('reads every variable', () => {
    const settings = loadDeliverySettings({
      MESSAGE_WEBHOOK_URL: 'https://hooks.example/in?token=abc',
      MESSAGE_WEBHOOK_SECRET: secret,
      MESSAGE_WEBHOOK_TIMEOUT_MS: '2500',
      MESSAGE_DELIVERY_ATTEMPTS: '3',
      MESSAGE_DELIVERY_MAX_AGE_SECONDS: '600',
      MESSAGE_DELIVERY_RETRY_MS: '100',
      MESSAGE_DELIVERY_MAX_RETRY_MS: '400',
      MESSAGE_RETENTION_DAYS: '2',
    });
    expect(settings).toEqual({
      endpoint: { url: new URL('https://hooks.example/in?token=abc'), key: Buffer.from(secret.slice(6), 'base64') },
      retry: { attempts: 3, maxAgeMs: 600_000, firstDelayMs: 100, maxDelayMs: 400 },
      timeoutMs: 2_500,
      retentionMs: 2 * 86_400_000,
    });
    // The log names the endpoint by its origin and path: its query may hold a token.
    expect(describeEndpoint(settings.endpoint!)).toBe('https://hooks.example/in');
  });

  it.each([
    [{ MESSAGE_WEBHOOK_URL: 'hooks.example/in', MESSAGE_WEBHOOK_SECRET: secret }, 'MESSAGE_WEBHOOK_URL must be an absolute'],
    [{ MESSAGE_WEBHOOK_URL: 'ftp://hooks.example/in', MESSAGE_WEBHOOK_SECRET: secret }, 'MESSAGE_WEBHOOK_URL must be an http:// or https:// URL'],
    [{ MESSAGE_WEBHOOK_URL: 'https://user:p4ss@hooks.example/', MESSAGE_WEBHOOK_SECRET: secret }, 'MESSAGE_WEBHOOK_URL must not hold a user name'],
    [{ MESSAGE_WEBHOOK_URL: 'https://hooks.example/?token=t0k3n' }, 'MESSAGE_WEBHOOK_SECRET must be set with MESSAGE_WEBHOOK_URL'],
    [{ MESSAGE_WEBHOOK_URL: 'https://hooks.example/', MESSAGE_WEBHOOK_SECRET: 'shhh-s3cret' }, 'MESSAGE_WEBHOOK_SECRET must be "whsec_"'],
    [{ MESSAGE_DELIVERY_RETRY_MS: '500', MESSAGE_DELIVERY_MAX_RETRY_MS: '499' }, 'MESSAGE_DELIVERY_MAX_RETRY_MS (499) must not be less than'],
  ])('refuses %o, never repeating a secret or the URL', (env, message) => {
    expect(() => loadDeliverySettings(env)).toThrow(ConfigError);
    expect(() => loadDeliverySettings(env)).toThrow(message);
    try {
      loadDeliverySettings(env);
    } catch (error) {
      for (const secretPart of ['p4ss', 't0k3n', 'shhh-s3cret', secret, 'hooks.example']) {
        expect((error as Error).message).not.toContain(secretPart);
      }
    }
  });
});

describe("the settings of the clients' own endpoints", () => {
  it('have the documented defaults: https only, public addresses only, 10 per account, disabled after 120 h of failures, kept 14 days, no traceparent sent', () => {
    const { addresses, ...rest } = loadClientEndpointSettings({});
    expect(rest).toEqual({ maxPerAccount: 10, disableAfterMs: 120 * 3_600_000, retentionMs: 14 * 86_400_000, sendTraceparent: false });
    expect(addresses.allowHttp).toBe(false);
    expect(refusalOf('127.0.0.1', addresses)).toContain('loopback');
  });

  it('reads every variable', () => {
    const { addresses, ...rest } = loadClientEndpointSettings({
      WEBHOOK_ALLOW_HTTP: 'TRUE',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
      WEBHOOK_MAX_ENDPOINTS: '3',
      WEBHOOK_DISABLE_AFTER_HOURS: '1',
      WEBHOOK_RETENTION_DAYS: '2',
      WEBHOOK_TRACE_CONTEXT: 'true',
    });
    expect(rest).toEqual({ maxPerAccount: 3, disableAfterMs: 3_600_000, retentionMs: 2 * 86_400_000, sendTraceparent: true });
    expect(addresses.allowHttp).toBe(true);
    expect([refusalOf('127.0.0.1', addresses), refusalOf('::1', addresses)]).toEqual([undefined, undefined]);
    expect(refusalOf('10.0.0.1', addresses)).toContain('private');
  });

  it.each([
    [{ WEBHOOK_ALLOW_HTTP: 'yes' }, 'WEBHOOK_ALLOW_HTTP must be one of true, false, got "yes"'],
    [{ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,intranet' }, 'WEBHOOK_ALLOWED_NETWORKS: "intranet" is not a network'],
    [{ WEBHOOK_MAX_ENDPOINTS: '0' }, 'WEBHOOK_MAX_ENDPOINTS must be a whole number from 1 to 1000, got "0"'],
    [{ WEBHOOK_DISABLE_AFTER_HOURS: '1.5' }, 'WEBHOOK_DISABLE_AFTER_HOURS must be a whole number from 1 to 8760'],
    [{ WEBHOOK_RETENTION_DAYS: '366' }, 'WEBHOOK_RETENTION_DAYS must be a whole number from 1 to 365'],
  ])('refuses %o, naming the variable', (env, message) => {
    expect(() => loadClientEndpointSettings(env)).toThrow(ConfigError);
    expect(() => loadClientEndpointSettings(env)).toThrow(message);
  });
});
