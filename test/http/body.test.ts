// The request body, at the wire: content codings are refused, 100 Continue comes only once every check on
// the headers has passed, and a body far over the limit still lets its client read the 413.
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { assertHonoursContract } from '../support/contract.js';
import { exchange, openSocket, parseAnswers, readUntilClosed, type RawAnswer } from '../support/rawSocket.js';
import { createKey, ON_SQLITE, startServer, useServer } from '../support/server.js';

const t = useServer();

type Fields = Record<string, string | number>;

const message = '{"message":"hello"}';
const json = { 'Content-Type': 'application/json' };
const withKey = (fields: Fields): Fields => ({ Authorization: `Bearer ${t.key}`, ...fields });

/** POST /v1/messages as raw bytes, with exactly the given fields (and Host). */
function post(fields: Fields, body: string | Buffer = ''): Buffer {
  const head = Object.entries({ Host: 'x', ...fields })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`POST /v1/messages HTTP/1.1\r\n${head}\r\n`), Buffer.from(body)]);
}

function checked(answer: RawAnswer | undefined): RawAnswer {
  if (!answer) throw new Error('no answer');
  assertHonoursContract({ method: 'POST', path: '/v1/messages', ...answer });
  return answer;
}

describe('Content-Encoding (RFC 9110 §8.4)', () => {
  const send = async (coding: string, body: string | Buffer, fields = withKey(json)) =>
    checked(
      (
        await exchange(
          t.server.baseUrl,
          post(
            { ...fields, 'Content-Encoding': coding, 'Content-Length': body.length, Connection: 'close' },
            body,
          ),
        )
      )[0],
    );

  it.each([
    ['gzip on a body that is not compressed', 'gzip', Buffer.from(message)],
    ['gzip on a compressed body', 'gzip', gzipSync(message)],
    ['br', 'br', Buffer.from(message)],
    ['identity, then gzip', 'identity, gzip', gzipSync(message)],
  ])('answers %s with 415 and Accept-Encoding: identity, and stores nothing', async (_name, coding, body) => {
    const answer = await send(coding, body);
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.bodyText)).toMatchObject({ code: 'unsupported_content_encoding', status: 415 });
    expect(answer.headers.get('accept-encoding')).toBe('identity');
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  it('accepts Content-Encoding: identity', async () => {
    expect((await send('identity', message)).status).toBe(202);
  });

  it('checks the key first: a coded body without a key is 401', async () => {
    expect((await send('gzip', gzipSync(message), json)).status).toBe(401);
  });
});

describe('Expect: 100-continue (RFC 9110 §10.1.1)', () => {
  /** Sends the head alone, and the body only once a 100 arrives; resolves with every answer. */
  async function expectContinue(fields: Fields): Promise<RawAnswer[]> {
    const socket = await openSocket(t.server.baseUrl);
    const closed = readUntilClosed(socket);
    socket.once('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 100 ')) socket.end(message);
    });
    socket.write(post({ Expect: '100-continue', 'Content-Length': message.length, ...fields }));
    return parseAnswers((await closed).text);
  }

  it.each([
    ['without a key', 401, () => json],
    ['with a body declared over 1 MiB', 413, () => withKey({ ...json, 'Content-Length': 2 * 1024 * 1024 })],
    ['with a content coding', 415, () => withKey({ ...json, 'Content-Encoding': 'gzip' })],
    ['with another content type', 400, () => withKey({ 'Content-Type': 'text/plain' })],
  ])('answers a request %s with %i, never 100 Continue, and closes', async (_name, status, fields) => {
    const answers = await expectContinue(fields());
    expect(answers.map((answer) => answer.status)).toEqual([status]);
    // The client may or may not send the body now; the connection cannot be read further either way.
    expect(checked(answers[0]).headers.get('connection')).toBe('close');
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  // This client half-closes once it sent the body; Node's server then drops a request still in flight,
  // which the answer on SQLite outruns and on PostgreSQL does not (see the closing note of issue 14).
  it.runIf(ON_SQLITE)('answers a key over its quota with 429, never 100 Continue, and closes', async () => {
    await t.server.close();
    const rateLimits = { requestsPerKey: 1, authFailuresPerAddress: 0, windowSeconds: 60 };
    // A clock that stands still, so that both requests fall in one window.
    const now = () => new Date('2026-11-23T10:00:00.000Z');
    t.server = await startServer({ rateLimits, now });
    t.key = (await createKey(t.server.store)).key;
    const first = await expectContinue(withKey({ ...json, Connection: 'close' }));
    expect(first.map((answer) => answer.status)).toEqual([100, 202]);
    const answers = await expectContinue(withKey(json));
    expect(answers.map((answer) => answer.status)).toEqual([429]);
    expect(checked(answers[0]).headers.get('connection')).toBe('close');
  });

  it.runIf(ON_SQLITE)('answers 100 Continue once those checks pass, then 202 to the body', async () => {
    const answers = await expectContinue(withKey({ ...json, Connection: 'close' }));
    expect(answers.map((answer) => answer.status)).toEqual([100, 202]);
    checked(answers[1]);
    expect(await t.server.store.messages.listMessages()).toHaveLength(1);
  });
});

describe('a body far over 1 MiB sent at full speed (RFC 9112 §9.6)', () => {
  it.each([
    ['with Content-Length', false],
    ['chunked', true],
  ])('%s: the client finishes writing 8 MiB, then reads the 413', async (_name, chunked) => {
    const size = 8 * 1024 * 1024;
    const body = Buffer.alloc(size, 'x');
    const socket = await openSocket(t.server.baseUrl);
    const closed = readUntilClosed(socket);
    const framing = chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': size };
    socket.write(post(withKey({ ...json, ...framing })));
    const framed = chunked
      ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
      : body;
    const written = await new Promise<string>((resolve) =>
      socket.write(framed, (error) => resolve((error as NodeJS.ErrnoException | null)?.code ?? 'written')),
    );
    expect(written).toBe('written');
    socket.end();
    const { text, error } = await closed;
    expect(error).toBeUndefined();
    const [answer, ...more] = parseAnswers(text);
    expect(more).toEqual([]);
    expect(checked(answer).status).toBe(413);
    expect(JSON.parse(answer?.bodyText ?? '')).toMatchObject({ code: 'payload_too_large' });
    expect(await t.server.store.messages.listMessages()).toEqual([]);
  });

  it('closes by itself a connection whose client neither sends the rest nor closes', async () => {
    const serverSide = new Promise<Socket>((resolve) => t.server.app.server.once('connection', resolve));
    const socket = await openSocket(t.server.baseUrl, { allowHalfOpen: true });
    const closedOnServer = new Promise((resolve) => void serverSide.then((s) => s.once('close', resolve)));
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    const ended = new Promise((resolve) => socket.once('end', resolve));
    const declared = withKey({ ...json, 'Content-Length': 8 * 1024 * 1024 });
    socket.write(post(declared, Buffer.alloc(2 * 1024 * 1024)));
    // Nothing more is sent and the client never closes: only the server's bound on lingering ends this.
    await ended;
    await closedOnServer;
    socket.destroy();
    expect(parseAnswers(text).map((answer) => answer.status)).toEqual([413]);
  });
});
