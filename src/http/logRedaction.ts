// What the request log says about a request. Fastify's own serializer logs the URL as sent, so a key sent
// as `?access_token=` (RFC 6750 §2.3), which the API refuses, would still land in the log in clear. No
// path of this server takes a query parameter, so no query value is worth keeping: every one is redacted.
import type { FastifyRequest } from 'fastify';

const REDACTED = '[redacted]';

/** A parameter name kept in the log; anything else, such as a key sent as a bare name, is redacted too. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,32}$/;

/** `/v1/store/orders?access_token=sok_…&limit=5` → `/v1/store/orders?access_token=[redacted]&limit=[redacted]` */
export function redactedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const parameters = url
    .slice(start + 1)
    .split('&')
    .map((parameter) => {
      const name = parameter.split('=', 1)[0] as string;
      return PLAIN_NAME.test(name) ? `${name}=${REDACTED}` : REDACTED;
    });
  return `${url.slice(0, start)}?${parameters.join('&')}`;
}

/** Fastify's request serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket.remotePort,
  };
}
