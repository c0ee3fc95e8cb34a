// What Node's HTTP server would do on its own, around Fastify, made to follow the API's rules: read every
// header field, answer Expect and CONNECT with the Error body, and close a connection so that the client
// can read the answer.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { apiError } from '../contract/errorBody.js';
import { notImplemented, writeRawError } from '../serving/errors.js';
import { requestIdFor } from '../serving/requestId.js';

/** How long a connection closed with request bytes still arriving keeps reading them (RFC 9112 §9.6). */
export const LINGER_MS = 5_000;

const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/** Node's parser keeps on the socket the last request whose headers it read: the one still arriving, if any. */
interface Parsed extends Socket {
  parser?: { incoming?: IncomingMessage | null } | null;
}

export function adaptNodeServer(server: Server, log: FastifyBaseLogger): void {
  // Node keeps only the first 2,000 fields and drops the rest unseen, so a repeated Authorization or
  // Content-Type could hide behind filler. Their total size is still capped by maxHeaderSize.
  server.maxHeadersCount = 0;

  // Without this listener Node answers 100 Continue before any check; the body reader sends it instead,
  // once authentication, quotas and the body's headers have passed (see sendContinue).
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    server.emit('request', request, response);
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const { status, body } = apiError('expectation_failed', 'The only expectation supported is 100-continue');
    const requestId = requestIdFor(request.headers['x-request-id']);
    log.info({ reqId: requestId, status }, 'unsupported Expect refused');
    const payload = JSON.stringify(body);
    response
      .writeHead(status, {
        'X-Request-Id': requestId,
        'Cache-Control': 'no-store',
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(payload),
        Connection: 'close',
      })
      .end(payload);
  });
  // Node hands CONNECT to this event and, with no listener, drops the connection without a word.
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const requestId = requestIdFor(request.headers['x-request-id']);
    log.info({ reqId: requestId, status: 501 }, 'CONNECT refused');
    writeRawError(socket, notImplemented('CONNECT'), requestId);
  });

  server.on('connection', (socket: Parsed) => {
    const destroySoon = socket.destroySoon.bind(socket);
    // Node calls this after the last answer on a connection. Closing while the client is still sending
    // makes the kernel reset the connection, and a reset can discard the answer before it is read.
    socket.destroySoon = () => {
      if (socket.parser?.incoming?.complete === false) lingerThenClose(socket);
      else destroySoon();
    };
  });
}

/** Half-closes, goes on reading (and discarding) until the client closes too, or LINGER_MS at most. */
function lingerThenClose(socket: Socket): void {
  socket.end();
  const deadline = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(deadline));
}

/** RFC 9110 §10.1.1: the 100 Continue a waiting client needs before it sends the body. */
export function sendContinue(request: IncomingMessage, response: ServerResponse): void {
  const { expect } = request.headers;
  // An HTTP/1.0 client does not know 100 (RFC 9110 §15.2), and Node emits checkContinue for 1.1 only.
  if (request.httpVersion !== '1.1' || expect === undefined || !CONTINUE.test(expect)) return;
  if (!response.headersSent) response.writeContinue();
}
