// The connection limit. Node's own `server.maxConnections` closes every connection beyond the limit as it
// opens, so a thousand sockets that never send a request (or never finish their headers) lock everyone
// out, the health probes included, until the headers timeout frees them. Here, at the limit, a new
// connection takes the place of the one that has been idle longest; only when every connection has a
// request in flight is the new one closed.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export function limitConnections(server: Server, max: number): void {
  const open = new Set<Socket>();
  // Without a request in flight: not yet through its headers, or kept alive between requests. A Set keeps
  // insertion order, and a socket is re-inserted when it becomes idle, so the first is the idle longest.
  const idle = new Set<Socket>();
  const inFlight = new Map<Socket, number>();
  const forget = (socket: Socket) => {
    open.delete(socket);
    idle.delete(socket);
    inFlight.delete(socket);
  };

  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const longestIdle = idle.values().next().value;
      if (longestIdle === undefined) {
        socket.destroy();
        return;
      }
      forget(longestIdle);
      longestIdle.destroy();
    }
    open.add(socket);
    idle.add(socket);
    socket.once('close', () => forget(socket));
  });

  // `close` comes once the answer is sent, or when it is abandoned; one listener serves every response.
  function answered(this: ServerResponse) {
    const { socket } = this.req;
    if (!open.has(socket)) return;
    const left = (inFlight.get(socket) ?? 1) - 1;
    if (left > 0) {
      inFlight.set(socket, left);
    } else {
      inFlight.delete(socket);
      idle.add(socket);
    }
  }

  server.on('request', ({ socket }, response) => {
    if (!open.has(socket)) return;
    idle.delete(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.on('close', answered);
  });
}
