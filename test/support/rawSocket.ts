// Raw HTTP/1.1 over node:net, for what no HTTP client will send (two Host fields, thousands of header
// fields, a 100 KB request target, CONNECT, a body pushed at full speed) and for watching the connection.
import { connect, type Socket } from 'node:net';
import type { ObservedResponse } from './contract.js';

export interface RawAnswer {
  status: number;
  headers: Headers;
  bodyText: string;
}

/**
 * A connection to the server at `baseUrl`, open. With `allowHalfOpen`, the socket does not answer the
 * server's end of writing by ending its own, as a client that never closes would not.
 */
export function openSocket(baseUrl: string, { allowHalfOpen = false } = {}): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen }, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Everything the server writes until the connection ends, and how it ended. */
export function readUntilClosed(socket: Socket): Promise<{ text: string; error?: string }> {
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  return new Promise((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ text, error: error.code ?? 'error' }));
    socket.on('close', () => resolve({ text }));
  });
}

/** Makes `socket` read at about `bytesPerMs`: paused after each chunk for as long as the rate allows. */
export function readAtRate(socket: Socket, bytesPerMs: number): void {
  socket.on('data', (chunk: Buffer) => {
    socket.pause();
    setTimeout(() => socket.resume(), chunk.length / bytesPerMs);
  });
}

/** Sends `request` on a connection of its own and reads every answer until the server closes it. */
export async function exchange(baseUrl: string, request: string | Buffer): Promise<RawAnswer[]> {
  const socket = await openSocket(baseUrl);
  const closed = readUntilClosed(socket);
  socket.write(request);
  return parseAnswers((await closed).text);
}

/** The answers in what a server wrote, interim (1xx) ones included. */
export function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    rest = rest.slice(end + 4);
    let bodyText = '';
    if (status >= 200 && status !== 204 && status !== 304) {
      if (headers.has('content-length')) {
        const length = Number(headers.get('content-length'));
        bodyText = rest.slice(0, length);
        rest = rest.slice(length);
      } else if (headers.get('transfer-encoding') === 'chunked') {
        for (;;) {
          const lineEnd = rest.indexOf('\r\n');
          const size = parseInt(rest.slice(0, lineEnd), 16);
          rest = rest.slice(lineEnd + 2);
          if (size === 0) {
            rest = rest.slice(rest.indexOf('\r\n') + 2);
            break;
          }
          bodyText += rest.slice(0, size);
          rest = rest.slice(size + 2);
        }
      } else {
        bodyText = rest;
        rest = '';
      }
    }
    answers.push({ status, headers, bodyText: Buffer.from(bodyText, 'latin1').toString('utf8') });
  }
  return answers;
}

/**
 * An answer made before any operation was known (by Node's parser, or for a malformed request), as the
 * contract checker sees it: outside every operation, so it must be the Error body.
 */
export function beforeRouting(answer: RawAnswer): ObservedResponse {
  return { method: 'GET', path: '(no route)', ...answer };
}
