// What the server says once it listens: where the API, its reference and its metrics are, whatever the log
// level; and a warning when /metrics is open beyond this machine with no token.
import { BlockList, isIP } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { MetricsConfig } from '../config.js';
import { API_VERSIONS } from '../contract/document.js';
import { VERSION } from '../version.js';
import { METRICS_PATH } from './metricsEndpoint.js';

/**
 * Logged at info even when LOG_LEVEL asks for warn or error only: it is the one line that tells where to
 * go. `silent` still silences it. The origins are the ones the listeners answer on, such as
 * `http://127.0.0.1:3000`.
 */
export function announceListening(log: FastifyBaseLogger, apiOrigin: string, metricsOrigin: string): void {
  const always = log.level === 'silent' ? log : log.child({}, { level: 'info' });
  always.info(
    `store-orders ${VERSION} listening: API ${API_VERSIONS.map((version) => `${apiOrigin}/${version}`).join(' and ')}, ` +
      `reference ${apiOrigin}/docs, ` +
      `metrics ${metricsOrigin}${METRICS_PATH}`,
  );
}

export function warnIfMetricsOpen(
  log: FastifyBaseLogger,
  host: string,
  metrics: MetricsConfig,
  metricsOrigin: string,
): void {
  if (metrics.token !== undefined || isLoopback(host)) return;
  log.warn(
    `${metricsOrigin}${METRICS_PATH} is open to anyone who can reach HOST=${host}: set METRICS_TOKEN, ` +
      'or bind HOST to a loopback address such as 127.0.0.1',
  );
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** `localhost`, 127.0.0.0/8 and ::1 are reached from this machine only; any other name or address is not. */
export function isLoopback(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  const address = host.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
