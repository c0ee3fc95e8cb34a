// The one error shape. Every error, whoever raised it, becomes an Error body here, with `status` equal to
// the HTTP status; unexpected ones become a generic 500 whose details go only to the log.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';
import { StoreUnavailableError } from '../store/unavailable.js';
import { requestIdFor } from './requestId.js';

/** For the places that cannot return an answer (a body reader deep in a stream); see errorAnswerFor. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(readonly answer: ErrorAnswer) {
    super(answer.body.message);
  }
}

export const MAX_BODY_BYTES = 1024 * 1024;

const INTERNAL = apiError('internal_error', 'An unexpected error occurred');

/** `expected` is false when the error is a bug or an outage that belongs in the error log. */
export function errorAnswerFor(error: unknown): { answer: ErrorAnswer; expected: boolean } {
  if (error instanceof ApiError) return { answer: error.answer, expected: true };
  const { code, statusCode, message } = (error ?? {}) as {
    code?: unknown;
    statusCode?: unknown;
    message?: unknown;
  };
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return expected(payloadTooLarge());
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return expected(unsupportedContentType());
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return expected(apiError('invalid_json', 'The request body is not valid JSON'));
    // Fastify's own message quotes the raw path, which may carry anything the client put there.
    case 'FST_ERR_BAD_URL':
      return expected(apiError('bad_request', 'The request path has a malformed percent-escape'));
  }
  if (error instanceof StoreUnavailableError) return { answer: storeOutage(error), expected: false };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const text = typeof message === 'string' && message !== '' ? message : 'Bad request';
    return expected(statusCode === 404 ? apiError('not_found', text) : apiError('bad_request', text));
  }
  if (statusCode === 503)
    return expected(apiError('service_unavailable', 'The server is shutting down'));
  return { answer: INTERNAL, expected: false };
}

/** The store's failures that pass: nothing of the request was written, so the client may retry. */
function storeOutage({ reason, retryAfterSeconds }: StoreUnavailableError): ErrorAnswer<503> {
  const retryAfter = { 'Retry-After': String(retryAfterSeconds) };
  return reason === 'busy'
    ? apiError('service_unavailable', 'The database is busy; retry shortly', retryAfter)
    : apiError('storage_unavailable', 'The database cannot be written to right now; retry later', retryAfter);
}

export function payloadTooLarge(): ErrorAnswer<413> {
  return apiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes`, {
    Connection: 'close',
  });
}

export function unsupportedContentType(): ErrorAnswer<400> {
  return apiError('unsupported_content_type', 'Content-Type must be application/json');
}

/** RFC 9110 §15.5.16: a coding the server cannot decode is 415, and Accept-Encoding says what it can. */
export function unsupportedContentEncoding(): ErrorAnswer<415> {
  return apiError('unsupported_content_encoding',
    'The request body must not be content-coded (Content-Encoding: identity only)',
    { 'Accept-Encoding': 'identity' },
  );
}

export function notImplemented(what: string): ErrorAnswer<501> {
  return apiError('not_implemented', `${what} is not supported by this server`, { Connection: 'close' });
}

function expected(answer: ErrorAnswer) {
  return { answer, expected: true };
}

/**
 * Node hands over a request it could not parse as HTTP before Fastify sees it; the answer is still the
 * Error body, written straight to the socket. Nothing of the request is echoed: it may hold a key.
 */
export function writeClientError(
  this: { log: FastifyBaseLogger } | undefined,
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  const answer = clientErrorAnswer(error);
  const requestId = requestIdFor(undefined);
  // Only Node's code for the failure: the raw request may hold a key.
  this?.log.info({ reqId: requestId, code: error.code, status: answer.status }, 'malformed request refused');
  writeRawError(socket, answer, requestId);
}

/** An Error body written on a bare socket, which is then closed: for answers made outside Fastify. */
export function writeRawError(
  socket: Socket,
  { status, body, headers }: ErrorAnswer,
  requestId: string,
): void {
  const payload = JSON.stringify(body);
  const extra = Object.entries(headers ?? {})
    .filter(([name]) => name.toLowerCase() !== 'connection')
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\n${extra}` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` +
      `Connection: close\r\n\r\n${payload}`,
  );
}

function clientErrorAnswer({ code, rawPacket }: { code?: string; rawPacket?: unknown }): ErrorAnswer {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return isOverlongRequestLine(rawPacket)
        ? apiError('uri_too_long', 'The request target is too long')
        : apiError('headers_too_large', 'The request headers are too large');
    // Node's headersTimeout and requestTimeout: the request did not arrive in time (a slow client).
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiError('request_timeout', 'The request did not arrive in time');
    default:
      return apiError('bad_request', 'Malformed HTTP request');
  }
}

/**
 * Node counts the request target and the header fields against one limit and reports HPE_HEADER_OVERFLOW
 * for both; RFC 9112 §3 wants 414 for the first. The data that overflowed is judged: when it starts with a
 * request line whose target alone reaches the limit, or is not even finished, the target is what is too
 * long. (A target trickled in many small pieces is still reported as 431.)
 */
function isOverlongRequestLine(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false;
  const requestLine = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ ([^ \r\n]*)(.?)/.exec(rawPacket.toString('latin1'));
  if (!requestLine) return false;
  const [, target = '', after] = requestLine;
  return after === '' || target.length >= maxHeaderSize;
}
