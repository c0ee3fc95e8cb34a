// vitest global setup for the run through Stoplight Prism (CONTRACT_PROXY=prism, `npm run test:prism`):
// one Prism validating proxy for the whole run, in front of whichever real server a test started.
// Prism forwards to one upstream, so that upstream is a small relay that passes each request on to the
// port named in its X-Upstream-Port header. Prism reports what it finds in an `sl-violations` header on
// each response (test/support/viaPrism.ts judges those) and in its log, which is checked at the end.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    prismUrl: string | undefined;
  }
}

export const UPSTREAM_PORT_HEADER = 'x-upstream-port';
const root = fileURLToPath(new URL('../..', import.meta.url));

function startRelay(): Promise<Server> {
  const relay = createServer((incoming, outgoing) => {
    const port = Number(incoming.headers[UPSTREAM_PORT_HEADER]);
    const headers = { ...incoming.headers };
    delete headers[UPSTREAM_PORT_HEADER];
    const upstream = httpRequest(
      { host: '127.0.0.1', port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return new Promise((resolve) => relay.listen(0, '127.0.0.1', () => resolve(relay)));
}

function startPrism(upstream: string): Promise<{ prism: ChildProcess; url: string; log: () => string }> {
  const prism = spawn(
    `${root}node_modules/.bin/prism`,
    ['proxy', `${root}openapi.yaml`, upstream, '--host', '127.0.0.1', '--port', '0', '--cors=false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start in 60 s:\n${log}`)), 60_000);
    const collect = (chunk: Buffer) => {
      log += String(chunk);
      const listening = /Prism is listening on (http:\/\/\S+)/.exec(log);
      if (listening) {
        clearTimeout(timer);
        resolve({ prism, url: listening[1]!, log: () => log });
      }
    };
    prism.stdout.on('data', collect);
    prism.stderr.on('data', collect);
    prism.on('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${log}`)));
  });
}

export default async function prismProxy(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.CONTRACT_PROXY !== 'prism') {
    project.provide('prismUrl', undefined);
    return undefined;
  }
  mkdirSync(`${root}test-artifacts`, { recursive: true });
  writeFileSync(`${root}test-artifacts/prism-requests.jsonl`, '');
  const relay = await startRelay();
  const { prism, url, log } = await startPrism(
    `http://127.0.0.1:${(relay.address() as AddressInfo).port}/v1`,
  );
  project.provide('prismUrl', url);
  return async () => {
    prism.removeAllListeners('exit');
    prism.kill('SIGTERM');
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    writeFileSync(`${root}test-artifacts/prism.log`, log());
    // A failure of Prism itself (it could not read or forward an answer) is never a pass.
    const broken = log()
      .split('\n')
      .filter((line) => line.includes('Request terminated with error'));
    if (broken.length > 0)
      throw new Error(`Prism failed on ${broken.length} request(s):\n${broken.join('\n')}`);
  };
}
