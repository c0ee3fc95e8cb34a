// The delivery's settings, read from the environment once at start: the operator's endpoint and its secret
// (never from a request), how long an attempt may take, when to give up, and how long a delivered or
// failed message is kept. A bad value is a ConfigError naming the variable, never repeating the secret, nor
// the URL, whose query or user part may hold one.
import { ConfigError } from '../configError.js';
import { parseChoice, parseWhole } from '../environment.js';
import { type AddressPolicy, addressPolicy } from './addresses.js';
import { parseSecret } from './signature.js';

/** Where messages go: an http or https URL, and the key that signs each delivery. */
export interface Endpoint {
  url: URL;
  /** The secret's bytes (MESSAGE_WEBHOOK_SECRET without `whsec_`, decoded). */
  key: Buffer;
}

/** When a message that could not be delivered is tried again, and when it is given up. */
export interface RetryPolicy {
  /** Attempts at most, the first included. */
  attempts: number;
  /** No attempt starts once a message is this old; one that fails after it is the last. */
  maxAgeMs: number;
  /** The wait after the first failed attempt, doubled after each next one (before the jitter). */
  firstDelayMs: number;
  /** The longest wait between two attempts. */
  maxDelayMs: number;
}

export interface DeliverySettings {
  /** Unset: no endpoint, and messages stay queued. */
  endpoint?: Endpoint;
  retry: RetryPolicy;
  /** How long an attempt may take: connecting, the answer's status and what of its body is read. */
  timeoutMs: number;
  /** Delivered and failed messages are deleted this long after their status was set. */
  retentionMs: number;
}

const SECOND_MS = 1_000;
const DAY_MS = 24 * 60 * 60 * SECOND_MS;

export function loadDeliverySettings(env: NodeJS.ProcessEnv): DeliverySettings {
  const firstDelayMs = parseWhole(env, 'MESSAGE_DELIVERY_RETRY_MS', 5_000, 1);
  const maxDelayMs = parseWhole(env, 'MESSAGE_DELIVERY_MAX_RETRY_MS', 3_600_000, 1);
  if (maxDelayMs < firstDelayMs) {
    throw new ConfigError(
      `MESSAGE_DELIVERY_MAX_RETRY_MS (${maxDelayMs}) must not be less than MESSAGE_DELIVERY_RETRY_MS (${firstDelayMs})`,
    );
  }
  const endpoint = loadEndpoint(env);
  return {
    ...(endpoint && { endpoint }),
    retry: {
      attempts: parseWhole(env, 'MESSAGE_DELIVERY_ATTEMPTS', 15, 1, 1_000),
      maxAgeMs: parseWhole(env, 'MESSAGE_DELIVERY_MAX_AGE_SECONDS', 86_400, 1) * SECOND_MS,
      firstDelayMs,
      maxDelayMs,
    },
    timeoutMs: parseWhole(env, 'MESSAGE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000),
    retentionMs: parseWhole(env, 'MESSAGE_RETENTION_DAYS', 30, 1, 36_500) * DAY_MS,
  };
}

function loadEndpoint(env: NodeJS.ProcessEnv): Endpoint | undefined {
  const raw = env.MESSAGE_WEBHOOK_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('MESSAGE_WEBHOOK_URL must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`MESSAGE_WEBHOOK_URL must be an http:// or https:// URL, got a ${url.protocol} one`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError('MESSAGE_WEBHOOK_URL must not hold a user name or password: the signature authenticates each delivery');
  }
  const secret = env.MESSAGE_WEBHOOK_SECRET;
  if (secret === undefined || secret === '') {
    throw new ConfigError('MESSAGE_WEBHOOK_SECRET must be set with MESSAGE_WEBHOOK_URL: every delivery is signed');
  }
  return { url, key: parseSecret(secret, 'MESSAGE_WEBHOOK_SECRET') };
}

/** The endpoints each account registers through the API (v2's webhook endpoints), and their events. */
export interface ClientEndpointSettings {
  /** Which URLs may be registered and which addresses their deliveries may reach. */
  addresses: AddressPolicy;
  /** Endpoints per account at most. */
  maxPerAccount: number;
  /** An endpoint whose every attempt has failed for this long is disabled (`failing`). */
  disableAfterMs: number;
  /** Events and attempts are kept this long: how far back a replay reaches. */
  retentionMs: number;
  /**
   * Each attempt sends its W3C `traceparent` (WEBHOOK_TRACE_CONTEXT=true): off by default, since it tells
   * the client's endpoint the operator's trace ids.
   */
  sendTraceparent: boolean;
}

const HOUR_MS = 60 * 60 * SECOND_MS;

export function loadClientEndpointSettings(env: NodeJS.ProcessEnv): ClientEndpointSettings {
  let addresses: AddressPolicy;
  try {
    addresses = addressPolicy({
      allowHttp: parseChoice('WEBHOOK_ALLOW_HTTP', env.WEBHOOK_ALLOW_HTTP?.toLowerCase(), ['true', 'false'], 'false') === 'true',
      allowedNetworks: env.WEBHOOK_ALLOWED_NETWORKS ?? '',
    });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`WEBHOOK_ALLOWED_NETWORKS: ${(error as Error).message}`);
  }
  return {
    addresses,
    maxPerAccount: parseWhole(env, 'WEBHOOK_MAX_ENDPOINTS', 10, 1, 1_000),
    disableAfterMs: parseWhole(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 8_760) * HOUR_MS,
    retentionMs: parseWhole(env, 'WEBHOOK_RETENTION_DAYS', 14, 1, 365) * DAY_MS,
    sendTraceparent: parseChoice('WEBHOOK_TRACE_CONTEXT', env.WEBHOOK_TRACE_CONTEXT?.toLowerCase(), ['true', 'false'], 'false') === 'true',
  };
}

/** How the log names the endpoint: its origin and path, never its query (which may hold a token). */
export function describeEndpoint({ url }: Endpoint): string {
  return `${url.origin}${url.pathname}`;
}

/** What the log says of the delivery at start, once for the service: where messages go, or that they stay. */
export function deliveryAnnouncement({ endpoint }: DeliverySettings): { fields: object; message: string } {
  if (endpoint === undefined) {
    return { fields: {}, message: 'message delivery is off: MESSAGE_WEBHOOK_URL is not set, so messages stay queued' };
  }
  return { fields: { endpoint: describeEndpoint(endpoint) }, message: 'messages are delivered to the endpoint' };
}
