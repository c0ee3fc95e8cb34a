// vitest global setup for the run through Stoplight Prism (CONTRACT_PROXY=prism, `npm run test:prism`):
// one Prism validating proxy per API version for the whole run, in front of whichever real server a test
// started: one of openapi.yaml for /v1, one of openapi.v2.yaml for /v2. Prism forwards to one upstream, so
// that upstream is a small relay (one for both) that passes each request on to the port named in its
// X-Upstream-Port header. Prism reports what it finds in an `sl-violations` header on
// each response (test/support/viaPrism.ts judges those) and in its log, which is checked at the end.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { runNeeds } from './setupNeeds.js';

/** Each version's contract, which its Prism proxies. */
const CONTRACTS = { v1: 'openapi.yaml', v2: 'openapi.v2.yaml' } as const;
export type ApiVersion = keyof typeof CONTRACTS;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Each version's Prism, by the root it stands in for. */
    prismUrls: Record<ApiVersion, string> | undefined;
  }
}

export const UPSTREAM_PORT_HEADER = 'x-upstream-port';
const PRISM_START_TIMEOUT_MS = 300_000;
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where a relay passes a request on: a port on this machine, with the headers to send. */
type Route = (incoming: IncomingMessage) => { port: number; headers: IncomingHttpHeaders };

/** To the test server named in the request's X-Upstream-Port header, which is not passed on. */
const toTestServer: Route = (incoming) => {
  const headers = { ...incoming.headers };
  delete headers[UPSTREAM_PORT_HEADER];
  return { port: Number(incoming.headers[UPSTREAM_PORT_HEADER]), headers };
};

/** To `port`, as the request came. */
const toPort =
  (port: number): Route =>
  (incoming) => ({ port, headers: incoming.headers });

/**
 * A small HTTP relay in this process. It passes each request on over a connection of its own, and never
 * closes its clients' idle connections: they close theirs. Neither side can then send on a kept-alive
 * connection that the other has just closed as idle, as a test worker did to Prism directly (undici's
 * `other side closed`) when it had been busy for longer than undici's margin, importing orders say.
 */
function startRelay(route: Route): Promise<Server> {
  const relay = createServer((incoming, outgoing) => {
    const { port, headers } = route(incoming);
    const upstream = httpRequest(
      { host: '127.0.0.1', port, method: incoming.method, path: incoming.url, headers, agent: false },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  relay.keepAliveTimeout = 0;
  return new Promise((resolve) => relay.listen(0, '127.0.0.1', () => resolve(relay)));
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

interface RunningPrism {
  prism: ChildProcess;
  url: string;
  log: () => string;
}

function startPrism(contract: string, upstream: string): Promise<RunningPrism> {
  const prism = spawn(
    `${root}node_modules/.bin/prism`,
    ['proxy', `${root}${contract}`, upstream, '--host', '127.0.0.1', '--port', '0', '--cors=false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    // A hang guard: Prism is a large program to load on a machine busy with other work.
    const timer = setTimeout(() => {
      prism.kill('SIGKILL');
      reject(new Error(`Prism did not start in ${PRISM_START_TIMEOUT_MS / 1000} s:\n${log}`));
    }, PRISM_START_TIMEOUT_MS);
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

/** Stops a Prism and writes its log; a failure of Prism itself (it could not read or forward an answer) is never a pass. */
function stopPrism({ prism, log }: RunningPrism, logFile: string): string[] {
  prism.removeAllListeners('exit');
  prism.kill('SIGTERM');
  writeFileSync(`${root}test-artifacts/${logFile}`, log());
  return log()
    .split('\n')
    .filter((line) => line.includes('Request terminated with error'));
}

export default async function prismProxy(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // In the pass through Prism, and only when a selected file sends through the contract client.
  if (process.env.CONTRACT_PROXY !== 'prism' || !runNeeds('prism')) {
    project.provide('prismUrls', undefined);
    return undefined;
  }
  mkdirSync(`${root}test-artifacts`, { recursive: true });
  writeFileSync(`${root}test-artifacts/prism-requests.jsonl`, '');
  const relay = await startRelay(toTestServer);
  const versions = Object.keys(CONTRACTS) as ApiVersion[];
  const prisms = await Promise.all(
    versions.map((version) => startPrism(CONTRACTS[version], `${urlOf(relay)}/${version}`)),
  );
  // The tests reach each Prism through a relay of its own (startRelay).
  const fronts = await Promise.all(prisms.map(({ url }) => startRelay(toPort(Number(new URL(url).port)))));
  project.provide(
    'prismUrls',
    Object.fromEntries(versions.map((version, index) => [version, urlOf(fronts[index]!)])) as Record<ApiVersion, string>,
  );
  return async () => {
    // v1's log keeps its name; v2's is prism-v2.log.
    const broken = prisms.flatMap((running, index) =>
      stopPrism(running, index === 0 ? 'prism.log' : `prism-${versions[index]}.log`),
    );
    for (const server of [relay, ...fronts]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    if (broken.length > 0)
      throw new Error(`Prism failed on ${broken.length} request(s):\n${broken.join('\n')}`);
  };
}
