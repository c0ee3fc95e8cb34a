// The API listener's connections: how many may be open, and how long one may sit with nothing moving.
//
// The limit: Node's own `server.maxConnections` closes every connection beyond the limit as it opens, so a
// thousand sockets that never send a request (or never finish their headers) lock everyone out, the health
// probes included, until the headers timeout frees them. Here, at the limit, a new connection takes the
// place of the one that has been idle longest; only when every connection has a request in flight is the
// new one closed.
//
// The idle timeout: a connection with a request in flight on which nothing moves either way (a client that
// stopped reading an answer, say) is closed once it has been still for longer than the timeout. Node's own
// socket timeout would do that with a timer armed again at every request of a kept-alive connection; here
// one sweep every so often looks at the connections with a request in flight. Between requests Node's
// keep-alive timeout applies, and before a request's headers are in, its headers timeout.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { connectionAccepted } from '../eventLoopTurns.js';

/** What the connections are held to. */
export interface ConnectionLimits {
  maxConnections: number;
  idleTimeoutMs: number;
}

// Kept on the socket itself: a request then costs two additions, not a Map's and a Set's updates. The
// longest idle is searched for only at the limit.
const IN_FLIGHT = Symbol('requests in flight');
const IDLE_SINCE = Symbol('idle since');
const MOVED = Symbol('what had moved at the last sweep');
const STILL_SINCE = Symbol('sweep since which nothing moved');

interface Counted extends Socket {
  [IN_FLIGHT]: number;
  /** When the socket last became idle, in `turns`: an order, not a time, so no clock is read. */
  [IDLE_SINCE]: number;
  [MOVED]: string | undefined;
  [STILL_SINCE]: number;
}

/** `onIdle` is told of each connection closed for being idle, before it is. */
export function superviseConnections(
  server: Server,
  { maxConnections, idleTimeoutMs }: ConnectionLimits,
  onIdle: () => void,
): void {
  const open = new Set<Counted>();
  let turns = 0;

  server.on('connection', (socket: Counted) => {
    // The work done a slice a turn waits while connections are being accepted, one a turn.
    connectionAccepted();
    if (open.size >= maxConnections) {
      const longestIdle = longestIdleOf(open);
      if (longestIdle === undefined) {
        socket.destroy();
        return;
      }
      open.delete(longestIdle);
      longestIdle.destroy();
    }
    socket[IN_FLIGHT] = 0;
    socket[IDLE_SINCE] = ++turns;
    socket[MOVED] = undefined;
    socket[STILL_SINCE] = 0;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });

  // `close` comes once the answer is sent, or when it is abandoned; one listener serves every response.
  function answered(this: ServerResponse) {
    const socket = this.req.socket as Counted;
    if (--socket[IN_FLIGHT] === 0) socket[IDLE_SINCE] = ++turns;
  }

  server.on('request', ({ socket }: { socket: Counted }, response: ServerResponse) => {
    socket[IN_FLIGHT] += 1;
    response.on('close', answered);
  });

  // Fastify gives Node its connectionTimeout (the same idle timeout, which a streamed answer's guard reads),
  // and Node would arm it on the socket again for every request.
  server.timeout = 0;
  const sweep = closeStillConnections(open, idleTimeoutMs, onIdle);
  server.once('close', () => clearInterval(sweep));
}

/** Every quarter of `idleMs` (once a second at most), closes the connections of `open` still for longer. */
function closeStillConnections(open: ReadonlySet<Counted>, idleMs: number, onIdle: () => void): NodeJS.Timeout {
  const everyMs = Math.max(10, Math.min(1_000, Math.floor(idleMs / 4)));
  // Whole sweeps are counted, and one more: a connection is closed after the timeout, never before it, however
  // late a sweep runs; and a streamed answer's own guard (stalledReaders.ts), timed from its last chunk, goes first.
  const stillSweeps = Math.ceil(idleMs / everyMs) + 1;
  let sweeps = 0;
  const sweep = setInterval(() => {
    sweeps += 1;
    for (const socket of open) {
      if (socket[IN_FLIGHT] === 0) {
        socket[MOVED] = undefined;
        continue;
      }
      const moved = movement(socket);
      if (moved !== socket[MOVED]) {
        socket[MOVED] = moved;
        socket[STILL_SINCE] = sweeps;
      } else if (sweeps - socket[STILL_SINCE] >= stillSweeps) {
        onIdle();
        socket.destroy();
      }
    }
  }, everyMs);
  // A graceful stop is bounded by its own deadline; the sweep must not hold the process.
  return sweep.unref();
}

/**
 * What moved on the socket, as a text to compare: bytes read, bytes handed to it, bytes it holds, and bytes
 * of a write in progress the system has not taken yet. Node's own timeout looks at the last too (its
 * `writeQueueSize` check): a long answer to a slow but steady reader must not be cut off.
 */
function movement(socket: Socket & { _handle?: { writeQueueSize?: number } | null }): string {
  return `${socket.bytesRead} ${socket.bytesWritten} ${socket.writableLength} ${socket._handle?.writeQueueSize}`;
}

/** Without a request in flight: not yet through its headers, or kept alive between requests. */
function longestIdleOf(open: Set<Counted>): Counted | undefined {
  let found: Counted | undefined;
  for (const socket of open) {
    if (socket[IN_FLIGHT] === 0 && (found === undefined || socket[IDLE_SINCE] < found[IDLE_SINCE])) found = socket;
  }
  return found;
}
