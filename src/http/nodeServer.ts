// What Node's HTTP server would do on its own, around Fastify, made to follow the API's rules: read every
// header field, and answer Expect and CONNECT with the Error body.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { apiError } from '../contract/errorBody.js';
import { notImplemented, writeRawError } from './errors.js';
import { requestIdFor } from './requestId.js';

export function adaptNodeServer(server: Server): void {
  // Node keeps only the first 2,000 fields and drops the rest unseen, so a repeated Authorization or
  // Content-Type could hide behind filler. Their total size is still capped by maxHeaderSize.
  server.maxHeadersCount = 0;

  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const { status, body } = apiError(
      417,
      'expectation_failed',
      'The only expectation supported is 100-continue',
    );
    response
      .writeHead(status, {
        'X-Request-Id': requestIdFor(request.headers['x-request-id']),
        'Cache-Control': 'no-store',
        'Content-Type': 'application/json',
        Connection: 'close',
      })
      .end(JSON.stringify(body));
  });
  // Node hands CONNECT to this event and, with no listener, drops the connection without a word.
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    writeRawError(socket, notImplemented('CONNECT'), requestIdFor(request.headers['x-request-id']));
  });
}
