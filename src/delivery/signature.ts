// Standard Webhooks signatures (https://www.standardwebhooks.com): the header fields that let a receiver
// check that a delivery is ours and recent, signed with node:crypto's HMAC-SHA256. The specification's own
// package (standardwebhooks) verifies them in the tests.
import { createHmac, randomBytes } from 'node:crypto';
import { ConfigError } from '../configError.js';

const PREFIX = 'whsec_';
/** The specification's advice for a secret's length. */
const KEY_BYTES = { min: 24, max: 64 };

/** The key of a secret written `whsec_` and its base64; a mistake is a ConfigError naming `variable` alone. */
export function parseSecret(secret: string, variable: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : undefined;
  if (encoded === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new ConfigError(`${variable} must be "${PREFIX}" followed by the base64 of the key`);
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < KEY_BYTES.min || key.length > KEY_BYTES.max) {
    throw new ConfigError(`${variable} must hold a key of ${KEY_BYTES.min} to ${KEY_BYTES.max} bytes, got ${key.length}`);
  }
  return key;
}

/**
 * `webhook-id`, `webhook-timestamp` (whole seconds) and `webhook-signature` for one attempt's `body`: one
 * `v1,` signature per key, space-separated, as the specification writes several (a receiver accepts the
 * delivery if any verifies: during a secret's rotation, the old one signs too).
 */
export function signedHeaders(keys: readonly Buffer[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signatures = keys.map((key) => `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}

/** A new secret, written as the specification writes one: `whsec_` and the base64 of 32 random bytes. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}
