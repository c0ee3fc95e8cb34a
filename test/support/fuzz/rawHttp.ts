// Sends a generated request exactly as generated: repeated header fields stay separate lines, bodies are
// raw bytes, and nothing is added but Host and Content-Length. fetch would merge repeats and refuse some
// of these requests before they leave.
import { Agent, request as httpRequest } from 'node:http';
import type { ObservedResponse } from '../contract.js';
import type { FuzzRequest } from './requests.js';

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

export function send(baseUrl: string, fuzzRequest: FuzzRequest): Promise<ObservedResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      agent,
      host: url.hostname,
      port: url.port,
      method: fuzzRequest.method,
      path: fuzzRequest.path,
    });
    for (const [name, value] of Object.entries(fuzzRequest.headers)) outgoing.setHeader(name, value);
    if (fuzzRequest.body !== undefined) outgoing.setHeader('Content-Length', fuzzRequest.body.length);
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : [value ?? '']) headers.append(name, one);
        }
        resolve({
          method: fuzzRequest.method,
          path: fuzzRequest.path.split('?')[0] as string,
          status: incoming.statusCode ?? 0,
          headers,
          bodyText: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    outgoing.end(fuzzRequest.body);
  });
}

export function closeConnections(): void {
  agent.destroy();
}
