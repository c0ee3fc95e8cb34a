// HTTP/1.1 framing: every header field is read, Host must be there exactly once, transfer codings other
// than chunked and CONNECT are refused, and whatever Node answers on its own is the Error body too.
import { describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { assertHonoursContract, contractViolations } from '../support/contract.js';
import { beforeRouting, exchange, type RawAnswer } from '../support/rawSocket.js';
import { startServer, useServer } from '../support/server.js';

const t = useServer();

/** 2,100 harmless fields: more than the 2,000 Node keeps by default. */
const filler = Array.from({ length: 2_100 }, (_, i) => `X-F${i}: y\r\n`);

/** A request as sent on the wire: a request line, header fields, and a body. */
const request = (line: string, fields: string[], body = '') => `${line}\r\n${fields.join('')}\r\n${body}`;

/** The one final answer to a request sent alone on its own connection. */
async function only(text: string): Promise<RawAnswer> {
  const answers = await exchange(t.server.baseUrl, text);
  expect(answers).toHaveLength(1);
  return answers[0] as RawAnswer;
}

/** The Error body, with the headers every answer has, on a connection the server then closes. */
function expectErrorBody(answer: RawAnswer, status: number, code: string): void {
  // A 501 is the point of some of these answers; apart from being a 5xx each must honour the contract.
  const problems = contractViolations(beforeRouting(answer)).filter((p) => !p.startsWith('server error 501'));
  expect(problems).toEqual([]);
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('connection')).toBe('close');
  expect(JSON.parse(answer.bodyText)).toEqual({ code, message: expect.any(String), status });
}

describe('header fields beyond the 2,000 Node keeps by default', () => {
  it('answers 401 to a second Authorization sent after 2,100 other fields', async () => {
    const auth = `Authorization: Bearer ${t.key}\r\n`;
    const answer = await only(
      request('GET /v1/store/orders HTTP/1.1', ['Host: x\r\n', auth, ...filler, auth, 'Connection: close\r\n']),
    );
    assertHonoursContract({ method: 'GET', path: '/v1/store/orders', ...answer });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.bodyText)).toMatchObject({ code: 'unauthorized' });
  });

  it('answers 400 unsupported_content_type to a second Content-Type after 2,100 other fields', async () => {
    const body = '{"message":"hidden"}';
    const answer = await only(
      request(
        'POST /v1/messages HTTP/1.1',
        [
          'Host: x\r\n',
          `Authorization: Bearer ${t.key}\r\n`,
          'Content-Type: application/json\r\n',
          ...filler,
          'Content-Type: text/plain\r\n',
          `Content-Length: ${body.length}\r\n`,
          'Connection: close\r\n',
        ],
        body,
      ),
    );
    assertHonoursContract({ method: 'POST', path: '/v1/messages', ...answer });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.bodyText)).toMatchObject({ code: 'unsupported_content_type' });
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  it('reads all of them rather than refusing the request: 2,100 fields and one key is a 200', async () => {
    const answer = await only(
      request('GET /v1/store/orders HTTP/1.1', [
        'Host: x\r\n',
        `Authorization: Bearer ${t.key}\r\n`,
        ...filler,
        'Connection: close\r\n',
      ]),
    );
    assertHonoursContract({ method: 'GET', path: '/v1/store/orders', ...answer });
    expect(answer.status).toBe(200);
  });
});

describe('Host (RFC 9112 §3.2)', () => {
  it('answers 400 with the Error body to two Host fields', async () => {
    const answer = await only(
      request('GET /v1/store/orders HTTP/1.1', ['Host: x\r\n', 'Host: y\r\n', `Authorization: Bearer ${t.key}\r\n`]),
    );
    expectErrorBody(answer, 400, 'bad_request');
  });

  // Each kind of route is opened differently (a GET operation by its handler, the others by a hook of their
  // own, unknown paths by the hook of their handler's plugin): framing comes first on every one.
  it.each([
    'GET /v1/store/orders',
    'POST /v1/messages',
    'DELETE /v1/store/orders/1',
    'GET /v1/nope',
    'POST /nope',
    'GET /healthz',
  ])('answers 400 to two Host fields on %s, before authentication or routing', async (target) => {
    const answer = await only(request(`${target} HTTP/1.1`, ['Host: x\r\n', 'Host: y\r\n', 'Content-Length: 0\r\n']));
    expectErrorBody(answer, 400, 'bad_request');
  });

  it('answers 400 with the Error body to an HTTP/1.1 request without Host', async () => {
    const answer = await only(request('GET /v1/store/orders HTTP/1.1', [`Authorization: Bearer ${t.key}\r\n`]));
    expectErrorBody(answer, 400, 'bad_request');
  });

  it('serves an HTTP/1.0 request without Host, which that version allows', async () => {
    const answer = await only('GET /healthz HTTP/1.0\r\n\r\n');
    expect(answer.status).toBe(200);
  });
});

describe('what Node answers on its own is the Error body', () => {
  const big = 'a'.repeat(20_000);
  it.each([
    ['a malformed header line', 400, 'bad_request', 'GET /v1/store/orders HTTP/1.1', ['Bad Header\r\n']],
    ['headers over 16 KiB', 431, 'headers_too_large', 'GET /healthz HTTP/1.1', [`X-Big: ${big}\r\n`]],
    ['a 100 KB request target', 414, 'uri_too_long', `GET /healthz?q=${big.repeat(5)} HTTP/1.1`, []],
    // Fastify answers this one on a connection it keeps; the test asks for the close.
    ['a malformed percent-escape', 400, 'bad_request', 'GET /v1/store/orders%zz HTTP/1.1', ['Connection: close\r\n']],
    ['an Expect other than 100-continue', 417, 'expectation_failed', 'GET /healthz HTTP/1.1', ['Expect: tea\r\n']],
    ['CONNECT', 501, 'not_implemented', 'CONNECT example.com:443 HTTP/1.1', []],
  ])('%s: %i %s, with X-Request-Id and no-store, echoing nothing', async (_name, status, code, line, fields) => {
    const answer = await only(request(line, ['Host: x\r\n', ...fields]));
    expectErrorBody(answer, status, code);
    // The id the answer gives is the one to look for in the log.
    expect(t.server.logs.join('')).toContain(answer.headers.get('x-request-id'));
    expect(answer.bodyText).not.toMatch(/%zz|aaaa|example\.com|Bad Header|tea/);
  });

  it('headers that arrive too late: 408, with X-Request-Id and no-store', async () => {
    const server = await startServer({
      http: { ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    try {
      const answers = await exchange(server.baseUrl, 'GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      expect(answers).toHaveLength(1);
      const answer = answers[0] as RawAnswer;
      expectErrorBody(answer, 408, 'request_timeout');
    } finally {
      await server.close();
    }
  });

  it('tells a long request target (414) from long header fields (431) near the limit', async () => {
    const a17k = 'a'.repeat(17_000);
    const longTarget = await only(request(`GET /healthz?q=${a17k} HTTP/1.1`, ['Host: x\r\n']));
    expect(longTarget.status).toBe(414);
    const longField = await only(request('GET /healthz?q=a HTTP/1.1', ['Host: x\r\n', `X-Big: ${a17k}\r\n`]));
    expect(longField.status).toBe(431);
  });
});

describe('transfer codings (RFC 9112 §6.1)', () => {
  const body = '{"message":"hi"}';
  const chunkedPost = (transferEncoding: string) =>
    request(
      'POST /v1/messages HTTP/1.1',
      [
        'Host: x\r\n',
        `Authorization: Bearer ${t.key}\r\n`,
        'Content-Type: application/json\r\n',
        `Transfer-Encoding: ${transferEncoding}\r\n`,
        'Connection: close\r\n',
      ],
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );

  it('answers 501 not_implemented to Transfer-Encoding: gzip, chunked, and stores nothing', async () => {
    expectErrorBody(await only(chunkedPost('gzip, chunked')), 501, 'not_implemented');
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  it('still accepts plain chunked bodies', async () => {
    const answer = await only(chunkedPost('chunked'));
    assertHonoursContract({ method: 'POST', path: '/v1/messages', ...answer });
    expect(answer.status).toBe(202);
  });
});
