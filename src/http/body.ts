// Reads and decodes a JSON request body, after authentication: size first, then media type, then JSON.
import type { Readable } from 'node:stream';
import secureJsonParse from 'secure-json-parse';
import { apiError } from '../contract/errorBody.js';
import { ApiError, MAX_BODY_BYTES, payloadTooLarge, unsupportedContentType } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Only `application/json`, with an optional `charset=utf-8` (the only charset JSON allows, RFC 8259). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((parameter) => parameter === '' || /^charset="?utf-8"?$/.test(parameter));
}

export async function readJsonBody(
  payload: Readable | undefined,
  contentType: string | undefined,
  contentLength: string | undefined,
): Promise<unknown> {
  if (contentLength !== undefined && Number(contentLength) > MAX_BODY_BYTES)
    throw new ApiError(payloadTooLarge());
  if (!isJsonContentType(contentType)) throw new ApiError(unsupportedContentType());
  const bytes = payload ? await readAtMost(payload, MAX_BODY_BYTES) : Buffer.alloc(0);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidJson('is not valid UTF-8');
  }
  if (text.trim() === '') throw invalidJson('is empty');
  try {
    // Rejects `__proto__` and `constructor.prototype` keys instead of carrying them into handlers.
    return secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason =
      error instanceof SyntaxError ? 'is not valid JSON' : 'contains a forbidden prototype property';
    throw invalidJson(reason);
  }
}

async function readAtMost(payload: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError(payloadTooLarge());
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

function invalidJson(reason: string): ApiError {
  return new ApiError(apiError(400, 'invalid_json', `The request body ${reason}`));
}
