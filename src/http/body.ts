// Reads and decodes a JSON request body, after authentication: size first, then content coding, then
// media type, then JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';
import {
  ApiError,
  MAX_BODY_BYTES,
  payloadTooLarge,
  unsupportedContentEncoding,
  unsupportedContentType,
} from '../serving/errors.js';
import { sentFields } from '../serving/rawHeaders.js';
import { firstDuplicateKey } from './duplicateKeys.js';
import { sendContinue } from './nodeServer.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Only `application/json`, with an optional `charset=utf-8` (the only charset JSON allows, RFC 8259). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((parameter) => parameter === '' || /^charset="?utf-8"?$/.test(parameter));
}

/** No coding but `identity` (RFC 9110 §8.4): the server decodes none, and would store the coded bytes. */
export function isIdentityCoded(contentEncoding: string | undefined): boolean {
  if (contentEncoding === undefined) return true;
  return contentEncoding.split(',').every((coding) => ['', 'identity'].includes(coding.trim().toLowerCase()));
}

export interface RequestBody {
  payload: Readable | undefined;
  contentType: string | undefined;
  contentLength: string | undefined;
  contentEncoding: string | undefined;
  /** Called once every check on the headers has passed, just before the body is read. */
  beforeReading: () => void;
}

/**
 * The body stage: the body of an operation that takes one, read once the caller is known, or the refusal
 * that says why it cannot be read. `response` gets the 100 Continue a waiting client needs.
 */
export async function operationBody(
  request: FastifyRequest,
  response: ServerResponse,
): Promise<{ body: unknown } | { refusal: ErrorAnswer }> {
  const { headers, raw } = request;
  try {
    const body = await readJsonBody({
      payload: request.body as Readable | undefined,
      contentType: declaredContentType(raw),
      contentLength: headers['content-length'],
      contentEncoding: headers['content-encoding'],
      beforeReading: () => sendContinue(raw, response),
    });
    return { body };
  } catch (error) {
    if (error instanceof ApiError) return { refusal: error.answer };
    throw error;
  }
}

/** Sent twice, a Content-Type declares nothing usable. */
export function declaredContentType(request: IncomingMessage): string | undefined {
  return sentFields(request).contentType;
}

export async function readJsonBody({
  payload,
  contentType,
  contentLength,
  contentEncoding,
  beforeReading,
}: RequestBody): Promise<unknown> {
  if (contentLength !== undefined && Number(contentLength) > MAX_BODY_BYTES)
    throw new ApiError(payloadTooLarge());
  if (!isIdentityCoded(contentEncoding)) throw new ApiError(unsupportedContentEncoding());
  if (!isJsonContentType(contentType)) throw new ApiError(unsupportedContentType());
  beforeReading();
  const bytes = payload ? await readAtMost(payload, MAX_BODY_BYTES) : Buffer.alloc(0);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidJson('is not valid UTF-8');
  }
  if (text.trim() === '') throw invalidJson('is empty');
  let value: unknown;
  try {
    // Rejects `__proto__` and `constructor.prototype` keys instead of carrying them into handlers.
    value = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    // secure-json-parse throws a SyntaxError for a forbidden key too; only its message tells them apart.
    const forbidden = /forbidden prototype property/i.test((error as Error).message);
    throw invalidJson(forbidden ? 'contains a forbidden prototype property' : 'is not valid JSON');
  }
  // I-JSON (RFC 7493), which a body must be: no name twice in one object (§2.3)...
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== undefined) {
    throw invalidJson(`has the member ${quoted(duplicate)} more than once in one object (RFC 7493 §2.3)`);
  }
  // ...and no unpaired surrogate escape such as "\ud800" (§2.1): it has no UTF-8 form, so SQLite would
  // store U+FFFD in its place and the text stored would differ from the text acknowledged.
  // Valid UTF-8 holds no surrogate, so only an escape can bring one in.
  if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) {
    throw invalidJson('has a string with an unpaired surrogate, such as "\\ud800" (RFC 7493 §2.1)');
  }
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** In u-mode a surrogate pair is one code point, so only an unpaired half is in category Cs. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * Member names included: they are strings of the body too. Iterative, since a body within MAX_BODY_BYTES
 * can nest arrays deeper than the call stack goes, which JSON.parse handles and a recursive walk would not.
 */
function hasLoneSurrogate(body: unknown): boolean {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (UNPAIRED_SURROGATE.test(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value as unknown[]) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, member] of Object.entries(value)) pending.push(name, member);
    }
  }
  return false;
}

/** A member name as JSON, shortened: it is the client's text, of any length. */
function quoted(name: string): string {
  const json = JSON.stringify(name);
  return json.length <= 66 ? json : `${json.slice(0, 64)}…"`;
}

/**
 * Stops at `limit` without destroying the request: the rest is read and dropped, so that the connection
 * closes only after the client has sent it and can read the 413 (see nodeServer.ts).
 */
function readAtMost(payload: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      payload.off('data', onData).off('end', onEnd).off('error', reject);
      payload.resume();
      reject(new ApiError(payloadTooLarge()));
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    payload
      .on('data', onData)
      .once('end', onEnd)
      .once('error', reject)
      // Settles a request the client abandoned. Every request closes: the error (and its stack trace, which
      // costs more than the rest of reading a small body) is made only for one that did not end.
      .once('close', () => {
        if (!payload.readableEnded) reject(new Error('The request was closed before its body ended'));
      });
  });
}

function invalidJson(reason: string): ApiError {
  return new ApiError(apiError('invalid_json', `The request body ${reason}`));
}
