// Reads the environment once into a typed Config, or fails with a message naming the bad variable.
import { ConfigError } from './configError.js';
import { parseCorsOrigins } from './corsOrigins.js';
import { parseChoice, parseWhole, wholeNumber } from './environment.js';

export { ConfigError };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: readable on a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  port: number;
  host: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  http: HttpLimits;
  rateLimits: RateLimits;
  /** How long a graceful stop may take before the process exits anyway. */
  stopTimeoutMs: number;
  /** How many server processes share the port; 1 is the server alone, with no primary process. */
  workers: number;
  metrics: MetricsConfig;
  deprecatedCallsFlushMs: number;
  /** The browser origins allowed to call the API (CORS); none when empty. */
  corsOrigins: string[];
}

export interface MetricsConfig {
  /** When set, /metrics is served only on this port, by a listener of its own on HOST; else on PORT. */
  port?: number;
  /** When set, /metrics asks for `Authorization: Bearer <token>`. */
  token?: string;
}

/** What a slow, idle or greedy client may take from the server. */
export interface HttpLimits {
  /** The whole request, headers and body, must arrive within this. */
  requestTimeoutMs: number;
  /** The headers must arrive within this (slowloris). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing moves either way, such as a client that stopped reading, is closed after this. */
  idleTimeoutMs: number;
  /** Connections beyond this are closed as soon as they open. */
  maxConnections: number;
}

/** Per window of `windowSeconds`; 0 turns a limit off. */
export interface RateLimits {
  requestsPerKey: number;
  authFailuresPerAddress: number;
  windowSeconds: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  maxConnections: 1_000,
};

export const DEFAULT_RATE_LIMITS: RateLimits = {
  requestsPerKey: 1_000,
  authFailuresPerAddress: 20,
  windowSeconds: 60,
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: loadPort(env),
    host: parseHost(env.HOST),
    logLevel: parseChoice('LOG_LEVEL', env.LOG_LEVEL?.toLowerCase(), LOG_LEVELS, 'info'),
    logFormat: parseChoice('LOG_FORMAT', env.LOG_FORMAT?.toLowerCase(), LOG_FORMATS, 'auto'),
    http: loadHttpLimits(env),
    rateLimits: {
      requestsPerKey: parseCount(env, 'RATE_LIMIT_REQUESTS', DEFAULT_RATE_LIMITS.requestsPerKey),
      authFailuresPerAddress: parseCount(
        env,
        'RATE_LIMIT_AUTH_FAILURES',
        DEFAULT_RATE_LIMITS.authFailuresPerAddress,
      ),
      windowSeconds: parsePositive(env, 'RATE_LIMIT_WINDOW_SECONDS', DEFAULT_RATE_LIMITS.windowSeconds),
    },
    stopTimeoutMs: parsePositive(env, 'STOP_TIMEOUT_MS', 10_000),
    workers: parseWorkers('WORKERS', env.WORKERS),
    metrics: loadMetricsConfig(env),
    deprecatedCallsFlushMs: parseWhole(env, 'DEPRECATED_CALLS_FLUSH_SECONDS', 5, 1, 3600) * 1000,
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
  };
}

function loadHttpLimits(env: NodeJS.ProcessEnv): HttpLimits {
  const defaults = DEFAULT_HTTP_LIMITS;
  const limits: HttpLimits = {
    requestTimeoutMs: parsePositive(env, 'HTTP_REQUEST_TIMEOUT_MS', defaults.requestTimeoutMs),
    headersTimeoutMs: parsePositive(env, 'HTTP_HEADERS_TIMEOUT_MS', defaults.headersTimeoutMs),
    keepAliveTimeoutMs: parsePositive(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', defaults.keepAliveTimeoutMs),
    idleTimeoutMs: parsePositive(env, 'HTTP_IDLE_TIMEOUT_MS', defaults.idleTimeoutMs),
    maxConnections: parsePositive(env, 'HTTP_MAX_CONNECTIONS', defaults.maxConnections),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

/** Far above the cores of any one machine, and low enough that a typo cannot fork thousands of processes. */
export const MAX_WORKERS = 1024;

/** WORKERS, or `serve --workers`: `name` is what the message names. */
export function parseWorkers(name: string, raw: string | undefined): number {
  return wholeNumber(name, raw, 1, 1, MAX_WORKERS);
}

function loadPort(env: NodeJS.ProcessEnv): number {
  return parsePort(env, 'PORT', 3000);
}

/** A TCP port; 0 lets the system pick a free one. */
function parsePort<F extends number | undefined>(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: F,
): number | F {
  return parseWhole(env, name, fallback, 0, 65_535);
}

/** A whole number from 0 (0 turns the setting off where docs/operating.md says so). */
function parseCount(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return parseWhole(env, name, fallback, 0);
}

function parsePositive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return parseWhole(env, name, fallback, 1);
}

function parseHost(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '127.0.0.1';
  if (/\s/.test(raw)) throw new ConfigError(`HOST must be a host name or address, got "${raw}"`);
  return raw;
}

function loadMetricsConfig(env: NodeJS.ProcessEnv): MetricsConfig {
  const metrics: MetricsConfig = {};
  const port = parsePort(env, 'METRICS_PORT', undefined);
  if (port !== undefined) {
    if (port !== 0 && port === loadPort(env)) {
      throw new ConfigError(`METRICS_PORT must differ from PORT, got ${port} for both`);
    }
    metrics.port = port;
  }
  const token = env.METRICS_TOKEN;
  if (token !== undefined && token !== '') {
    // The token is a secret: the message must not repeat it.
    if (!/^[\x21-\x7e]{16,}$/.test(token)) {
      throw new ConfigError('METRICS_TOKEN must be at least 16 visible ASCII characters, without spaces');
    }
    metrics.token = token;
  }
  return metrics;
}
