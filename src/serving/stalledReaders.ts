// A client that stops reading a streamed body must not keep it, and the snapshot behind it, for long.
// Node's own socket timeout is no guard here: it lets a write that moved at all since the last check
// start a new period, so a stalled response lives up to twice as long as the timeout says.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Guards a streamed answer as it is sent, with the listener's idle timeout; one warning is logged for each
 * connection reset.
 */
export function cutOffIfStalled(reply: FastifyReply, body: Readable): void {
  const idleMs = reply.server.initialConfig.connectionTimeout as number;
  cutOffWhenStalled(reply.raw, body, idleMs, () =>
    reply.log.warn('the client stopped reading a streamed answer: its connection is reset'),
  );
}

/**
 * Resets the connection of `response` when `body` makes no progress for `idleMs` while it is being sent:
 * progress is a chunk handed to the connection, or the connection taking in what it had buffered. The
 * reset (not a FIN queued behind megabytes nobody reads) frees the socket's buffers at once.
 */
export function cutOffWhenStalled(
  response: ServerResponse,
  body: Readable,
  idleMs: number,
  onCutOff: () => void,
): void {
  const connection = response.req.socket;
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    timer = setTimeout(() => {
      onCutOff();
      connection.resetAndDestroy();
    }, idleMs);
    // A graceful stop is bounded by its own deadline; this timer must not hold the process.
    timer.unref();
  };
  const progress = () => timer?.refresh();
  body.on('data', progress);
  response.on('drain', progress);
  if (response.socket) start();
  else waitForTurn(response, body, start);
  const done = () => {
    clearTimeout(timer);
    body.off('data', progress);
    response.off('drain', progress);
  };
  response.once('finish', done);
  response.once('close', done);
}

/**
 * An answer to a pipelined request waits behind the answers before it: Node hands it the connection (its
 * 'socket' event) only when its turn comes, and never tells it if the connection closes first. Its clock
 * starts with its turn, so a client reading the answer before it, at any pace, is never cut off for it;
 * and its body ends with the connection, or it would hold its snapshot for as long as the process lives.
 */
function waitForTurn(response: ServerResponse, body: Readable, start: () => void): void {
  const connection = response.req.socket;
  const abandon = () => body.destroy();
  connection.once('close', abandon);
  response.once('socket', () => {
    connection.off('close', abandon);
    start();
  });
}
