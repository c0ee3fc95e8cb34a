// A TCP relay between a server and its PostgreSQL that counts the statements the server sends: each
// extended-protocol query ends with one Sync message, each simple query is one Query message. It reads
// the frontend's framing (a type byte, then a length that counts itself) after the startup packet, which
// has no type byte; it changes nothing on the way. A statement whose text matches `leaveOut` is not
// counted: the server's own background work (the event dispatcher's claims, the retention's sweeps), which
// runs on its clock, not per request.
import { createServer, type Server, type Socket, connect } from 'node:net';

export interface StatementCounter {
  /** DATABASE_URL with the relay in place of the PostgreSQL of `url`. */
  url: string;
  /** Statements sent so far, over every connection. */
  statements(): number;
  close(): Promise<void>;
}

/** The text of a Parse ('P': a name, then the query) or a simple Query ('Q') message. */
function queryText(message: Buffer): string {
  const body = message.subarray(5);
  if (message[0] === 0x51) return body.toString('utf8', 0, Math.max(0, body.indexOf(0)));
  const afterName = body.indexOf(0) + 1;
  return body.toString('utf8', afterName, body.indexOf(0, afterName));
}

export async function countStatements(databaseUrl: string, leaveOut: readonly RegExp[] = []): Promise<StatementCounter> {
  const target = new URL(databaseUrl);
  let statements = 0;
  const sockets = new Set<Socket>();
  const relay: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.pipe(client);
    let buffered = Buffer.alloc(0);
    let started = false;
    let text = '';
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const header = started ? 5 : 4;
        if (buffered.length < header) break;
        const length = started ? buffered.readInt32BE(1) + 1 : buffered.readInt32BE(0);
        if (buffered.length < length) break;
        if (started && (buffered[0] === 0x50 || buffered[0] === 0x51)) text = queryText(buffered.subarray(0, length));
        // 'S' Sync, 'Q' Query
        if (started && (buffered[0] === 0x53 || buffered[0] === 0x51) && !leaveOut.some((pattern) => pattern.test(text))) {
          statements++;
        }
        buffered = buffered.subarray(length);
        started = true;
      }
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  if (typeof address !== 'object' || address === null) throw new Error('the relay has no port');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    statements: () => statements,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => relay.close(() => resolve()));
    },
  };
}
