// The body reader on its own, fed a payload built in memory: the order of its refusals, its JSON rules
// (I-JSON, no prototype keys) and when it reads at all.
import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { describe, expect, it, vi } from 'vitest';
import { isIdentityCoded, isJsonContentType, readJsonBody, type RequestBody } from '../../src/http/body.js';
import { ApiError, MAX_BODY_BYTES } from '../../src/serving/errors.js';

/** A payload that records whether anything pulled a chunk from it, and whether it was read to its end. */
function payloadOf(...chunks: (string | Buffer)[]) {
  const seen = { pulled: false, finished: false };
  const payload = Readable.from(
    (function* () {
      seen.pulled = true;
      for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      seen.finished = true;
    })(),
  );
  return { payload, seen };
}

function request(fields: Partial<RequestBody> & { body?: string | Buffer | undefined }): RequestBody {
  const { body, ...rest } = fields;
  return {
    payload: body === undefined ? undefined : payloadOf(body).payload,
    contentType: 'application/json',
    contentLength: undefined,
    contentEncoding: undefined,
    beforeReading: () => {},
    ...rest,
  };
}

/** The Error body `readJsonBody` refuses with; fails the test when it resolves or throws anything else. */
async function refusal(body: RequestBody): Promise<ApiError['answer']> {
  const error: unknown = await readJsonBody(body).then(
    (value) => new Error(`resolved with ${JSON.stringify(value)}`),
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw error;
  return error.answer;
}

const invalidJson = (reason: string) => ({
  status: 400,
  body: { code: 'invalid_json', message: `The request body ${reason}`, status: 400 },
});
const tooLarge = {
  status: 413,
  body: {
    code: 'payload_too_large',
    message: `The request body is larger than ${MAX_BODY_BYTES} bytes`,
    status: 413,
  },
  headers: { Connection: 'close' },
};
const coded = {
  status: 415,
  body: {
    code: 'unsupported_content_encoding',
    message: 'The request body must not be content-coded (Content-Encoding: identity only)',
    status: 415,
  },
  headers: { 'Accept-Encoding': 'identity' },
};
const notJson = {
  status: 400,
  body: { code: 'unsupported_content_type', message: 'Content-Type must be application/json', status: 400 },
};

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    ' application/json ; ',
  ])('accepts %j', (contentType) => {
    expect(isJsonContentType(contentType)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/json',
    'application/jsonx',
    'application/problem+json',
    'application/json, text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset=utf-8; profile=x',
    'application/json; boundary=x',
    'text/plain; charset=utf-8',
  ])('refuses %j', (contentType) => {
    expect(isJsonContentType(contentType)).toBe(false);
  });
});

describe('isIdentityCoded', () => {
  it.each([undefined, '', 'identity', 'IDENTITY', 'identity, identity', ' identity , '])(
    'accepts %j',
    (coding) => {
      expect(isIdentityCoded(coding)).toBe(true);
    },
  );

  it.each(['gzip', 'br', 'x-gzip', 'identity, gzip', 'gzip, identity', 'identityx'])(
    'refuses %j',
    (coding) => {
      expect(isIdentityCoded(coding)).toBe(false);
    },
  );
});

describe('readJsonBody refuses in order: size, then coding, then media type, then JSON', () => {
  const overLimit = String(MAX_BODY_BYTES + 1);

  it.each([
    ['a declared size over the limit, a coding and a wrong type', overLimit, 'gzip', 'text/plain', tooLarge],
    ['a coding and a wrong type', String(MAX_BODY_BYTES), 'gzip', 'text/plain', coded],
    ['a coding alone', '2', 'br', 'application/json', coded],
    ['a wrong type alone', '2', undefined, 'text/plain', notJson],
    ['no type', '2', undefined, undefined, notJson],
  ])('answers %s, without reading the body or calling beforeReading', async (...row) => {
    const [, contentLength, contentEncoding, contentType, expected] = row;
    const { payload, seen } = payloadOf('{}');
    const beforeReading = vi.fn();
    const result = await refusal({ payload, contentLength, contentEncoding, contentType, beforeReading });
    expect(result).toEqual(expected);
    expect(beforeReading).not.toHaveBeenCalled();
    expect(seen.pulled).toBe(false);
  });

  it('judges the JSON only once the headers pass', async () => {
    expect(await refusal(request({ contentType: 'text/plain', body: '{"a":1,"a":2}' }))).toEqual(notJson);
  });
});

describe('readJsonBody, once the headers pass', () => {
  it('calls beforeReading once, before it reads the body, and returns the parsed value', async () => {
    const { payload, seen } = payloadOf('{"message":', '"hello"}');
    const pulledAtCall: boolean[] = [];
    const beforeReading = vi.fn(() => pulledAtCall.push(seen.pulled));
    const value = await readJsonBody({
      payload,
      contentType: 'application/json; charset=utf-8',
      contentLength: '19',
      contentEncoding: 'identity',
      beforeReading,
    });
    expect(value).toEqual({ message: 'hello' });
    expect(beforeReading).toHaveBeenCalledTimes(1);
    expect(pulledAtCall).toEqual([false]);
  });

  it('calls beforeReading once even when the body then turns out to be bad', async () => {
    const beforeReading = vi.fn();
    expect(await refusal(request({ body: '{', beforeReading }))).toEqual(invalidJson('is not valid JSON'));
    expect(beforeReading).toHaveBeenCalledTimes(1);
  });

  it('accepts a body of exactly the limit', async () => {
    const text = `"${'a'.repeat(MAX_BODY_BYTES - 2)}"`;
    const value = await readJsonBody(request({ contentLength: String(MAX_BODY_BYTES), body: text }));
    expect(value).toBe(text.slice(1, -1));
  });

  it('refuses with 413 a body over the limit whatever Content-Length said, and drains it', async () => {
    const { payload, seen } = payloadOf('"', 'a'.repeat(MAX_BODY_BYTES - 1), 'a"', 'and more');
    expect(await refusal(request({ payload, contentLength: '2' }))).toEqual(tooLarge);
    // The rest is drained, not destroyed, so that the client can finish sending and read the answer.
    await finished(payload);
    expect(seen.finished).toBe(true);
  });

  it('refuses with 413 a body past the limit without Content-Length', async () => {
    expect(await refusal(request({ body: 'x'.repeat(MAX_BODY_BYTES + 1) }))).toEqual(tooLarge);
  });

  it.each([
    ['no payload at all', undefined],
    ['an empty payload', ''],
    ['white space alone', ' \r\n\t '],
  ])('refuses %s as empty', async (_name, body) => {
    expect(await refusal(request({ body }))).toEqual(invalidJson('is empty'));
  });

  it.each([
    ['a byte that is never UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
    ['an overlong encoding of "/"', Buffer.from([0x22, 0xc0, 0xaf, 0x22])],
    ['a sequence cut short', Buffer.from([0x22, 0xe2, 0x82, 0x22])],
    ['a surrogate encoded in UTF-8', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])],
  ])('refuses %s as not UTF-8', async (_name, body) => {
    expect(await refusal(request({ body }))).toEqual(invalidJson('is not valid UTF-8'));
  });

  it('decodes a character split across two chunks', async () => {
    const euro = Buffer.from('"€"');
    const { payload } = payloadOf(euro.subarray(0, 2), euro.subarray(2));
    expect(await readJsonBody(request({ payload }))).toBe('€');
  });

  const notJsonTexts = ['{', '{"a":1,}', "{'a':1}", 'NaN', '{"a":1} x', '[1] [2]'];
  it.each(notJsonTexts)('refuses %j as not JSON', async (body) => {
    expect(await refusal(request({ body }))).toEqual(invalidJson('is not valid JSON'));
  });

  it.each(['null', '0', '"text"', '[]', 'true'])('returns %s, not an object, as it is', async (body) => {
    expect(await readJsonBody(request({ body }))).toEqual(JSON.parse(body));
  });

  it.each([
    '{"__proto__":{"isAdmin":true}}',
    '{"message":"x","nested":{"__proto__":{}}}',
    String.raw`{"\u005f_proto__":{}}`,
    '{"constructor":{"prototype":{"isAdmin":true}}}',
    '[{"constructor":{"prototype":{}}}]',
  ])('refuses prototype poisoning in %s as invalid_json', async (body) => {
    expect(await refusal(request({ body }))).toMatchObject({
      status: 400,
      body: { code: 'invalid_json', status: 400 },
    });
  });

  it('names the forbidden prototype property in its message', async () => {
    expect(await refusal(request({ body: '{"__proto__":{}}' }))).toEqual(
      invalidJson('contains a forbidden prototype property'),
    );
  });

  it('accepts a member named constructor that carries no prototype', async () => {
    expect(await readJsonBody(request({ body: '{"constructor":"x","prototype":1}' }))).toEqual({
      constructor: 'x',
      prototype: 1,
    });
  });

  it.each([
    ['{"message":"a","message":"b"}', '"message"'],
    ['[{"x":{"y":1,"y":1}}]', '"y"'],
    [String.raw`{"a":1,"\u0061":2}`, '"a"'],
    [String.raw`{"q\"":1,"q\"":2}`, String.raw`"q\""`],
  ])('refuses %s, which has a member name twice', async (body, name) => {
    expect(await refusal(request({ body }))).toEqual(
      invalidJson(`has the member ${name} more than once in one object (RFC 7493 §2.3)`),
    );
  });

  it('shortens a long duplicate member name in its message', async () => {
    const name = 'n'.repeat(100);
    const { body } = await refusal(request({ body: `{"${name}":1,"${name}":2}` }));
    expect(body.message).toBe(
      `The request body has the member "${'n'.repeat(63)}…" more than once in one object (RFC 7493 §2.3)`,
    );
  });

  it('quotes a duplicate name of exactly 64 characters whole', async () => {
    const name = 'n'.repeat(64);
    const { body } = await refusal(request({ body: `{"${name}":1,"${name}":2}` }));
    expect(body.message).toContain(`member "${name}" more`);
  });

  it.each([
    String.raw`{"message":"\ud800"}`,
    String.raw`{"message":"\uDC00 after"}`,
    String.raw`{"message":"\ud83d"}`,
    String.raw`{"\udfff":1}`,
    String.raw`[[["x\ude00"]]]`,
  ])('refuses %s, which has an unpaired surrogate', async (body) => {
    expect(await refusal(request({ body }))).toEqual(
      invalidJson(String.raw`has a string with an unpaired surrogate, such as "\ud800" (RFC 7493 §2.1)`),
    );
  });

  it.each([
    [String.raw`{"message":"\ud83d\ude00"}`, { message: '😀' }],
    [String.raw`{"message":"\\ud800"}`, { message: String.raw`\ud800` }],
    ['{"message":"😀"}', { message: '😀' }],
  ])('accepts %s, which has no unpaired surrogate', async (body, value) => {
    expect(await readJsonBody(request({ body }))).toEqual(value);
  });

  it('walks a deeply nested body for surrogates without running out of stack', async () => {
    const depth = 400_000;
    const body = `${'['.repeat(depth)}"\\ud83d\\ude00"${']'.repeat(depth)}`;
    let value = await readJsonBody(request({ body }));
    for (let level = 0; level < depth; level++) value = (value as unknown[])[0];
    expect(value).toBe('😀');
  });

  it('rejects, and does not hang, when the payload fails', async () => {
    const failure = new Error('socket reset');
    const payload = Readable.from(
      (function* () {
        yield Buffer.from('{"message":');
        throw failure;
      })(),
    );
    await expect(readJsonBody(request({ payload }))).rejects.toBe(failure);
  });

  it('rejects, and does not hang, when the payload closes before it ends', async () => {
    const payload = new PassThrough();
    payload.write('{"message":');
    const reading = readJsonBody(request({ payload }));
    payload.destroy();
    await expect(reading).rejects.toThrow('The request was closed before its body ended');
  });
});
