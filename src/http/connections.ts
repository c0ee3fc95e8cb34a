// The connection limit. Node's own `server.maxConnections` closes every connection beyond the limit as it
// opens, so a thousand sockets that never send a request (or never finish their headers) lock everyone
// out, the health probes included, until the headers timeout frees them. Here, at the limit, a new
// connection takes the place of the one that has been idle longest; only when every connection has a
// request in flight is the new one closed.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// Kept on the socket itself: a request then costs two additions, not a Map's and a Set's updates. The
// longest idle is searched for only at the limit.
const IN_FLIGHT = Symbol('requests in flight');
const IDLE_SINCE = Symbol('idle since');

interface Counted extends Socket {
  [IN_FLIGHT]: number;
  /** When the socket last became idle, in `turns`: an order, not a time, so no clock is read. */
  [IDLE_SINCE]: number;
}

export function limitConnections(server: Server, max: number): void {
  const open = new Set<Counted>();
  let turns = 0;

  server.on('connection', (socket: Counted) => {
    if (open.size >= max) {
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
}

/** Without a request in flight: not yet through its headers, or kept alive between requests. */
function longestIdleOf(open: Set<Counted>): Counted | undefined {
  let found: Counted | undefined;
  for (const socket of open) {
    if (socket[IN_FLIGHT] === 0 && (found === undefined || socket[IDLE_SINCE] < found[IDLE_SINCE])) found = socket;
  }
  return found;
}
