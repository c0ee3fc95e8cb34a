// The bench's "featured route" stands for a hand-written server with every feature the project keeps on for
// listOrders; its ratios mean something only while it really does that work. Here it answers, side by side
// with the project on copies of one file, what the project answers.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertHonoursContract } from '../support/contract.js';
import { validatingFetch, wrongKey } from '../support/http.js';
import { freePort, spawnServer, type ServerProcess } from '../support/processes.js';
import { exchange } from '../support/rawSocket.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const QUOTA = 4;
const FAILURES = 4;
// Both count in windows fixed on the clock, and the requests below must all fall in one: the longest window
// (2001-09-09 to 2033-05-18) cannot end among them, where a minute's would one run in six, or the test would
// wait for the next. The quota at its default window is the walkthrough's (test/package/walkthrough.test.ts)
// and test/http/rateLimits.test.ts's, on a clock of its own.
const WINDOW_SECONDS = 999_999_999;

const QUOTAS = {
  RATE_LIMIT_REQUESTS: String(QUOTA),
  RATE_LIMIT_AUTH_FAILURES: String(FAILURES),
  RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
};

interface Seed {
  path: string;
  key: string;
}

let seed: Seed;
let project: ServerProcess;
let featured: { baseUrl: string; child: ChildProcess };

async function startFeatured(path: string): Promise<{ baseUrl: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [`${root}bench/servers/featuredRoute.mjs`], {
    env: { ...process.env, DATABASE_URL: path, PORT: String(port), ...QUOTAS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      output += String(chunk);
      if (output.includes('listening')) resolve();
    });
    child.stderr?.on('data', (chunk) => (output += String(chunk)));
    child.on('exit', (code) => reject(new Error(`featured route exited with ${code}: ${output}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, child };
}

beforeAll(async () => {
  const { seedDatabase } = (await import(`${root}bench/seed.mjs`)) as { seedDatabase: (n: number) => Promise<Seed> };
  seed = await seedDatabase(100);
  // Orders with fields left empty, which the list leaves out of the order.
  const db = new Database(seed.path);
  db.exec('UPDATE orders SET pet_id = NULL, quantity = NULL, ship_date = NULL, complete = NULL WHERE id % 7 = 0');
  db.close();
  copyFileSync(seed.path, `${seed.path}.featured`);
  [project, featured] = await Promise.all([
    spawnServer({ DATABASE_URL: seed.path, LOG_LEVEL: 'warn', ...QUOTAS }, { init: false }),
    startFeatured(`${seed.path}.featured`),
  ]);
});

afterAll(() => {
  project?.child.kill();
  featured?.child.kill();
  if (seed) rmSync(dirname(seed.path), { recursive: true, force: true });
});

const servers = () => [
  // Only the project's answers are the API's, and checked against the contract.
  { get: validatingFetch, checked: true, baseUrl: project.baseUrl, path: seed.path },
  { get: fetch, checked: false, baseUrl: featured.baseUrl, path: `${seed.path}.featured` },
];

type Fetch = typeof fetch;

function list(get: Fetch, baseUrl: string, headers: Record<string, string> = {}) {
  return get(`${baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${seed.key}`, ...headers } });
}

/** Two Authorization fields, which no fetch sends (it joins them into one). */
async function twoKeys(baseUrl: string, checked: boolean): Promise<number> {
  const field = `Authorization: Bearer ${seed.key}\r\n`;
  const request = `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\n${field}${field}Connection: close\r\n\r\n`;
  const [answer] = await exchange(baseUrl, request);
  if (!answer) throw new Error('no answer');
  if (checked) assertHonoursContract({ method: 'GET', path: '/v1/store/orders', ...answer });
  return answer.status;
}

const FIELDS = ['content-type', 'cache-control', 'etag', 'ratelimit-policy', 'ratelimit'];

/** Revokes the file's one key, or makes it active again: a commit of another connection, as the CLI's. */
function setRevoked(path: string, revoked: boolean): void {
  const db = new Database(path);
  db.prepare('UPDATE api_keys SET revoked_at = ?').run(revoked ? '2026-01-01T00:00:00.000Z' : null);
  db.close();
}

async function drained(requests: (() => Promise<Response>)[]): Promise<Response[]> {
  const answers = [];
  for (const request of requests) {
    const answer = await request();
    await answer.arrayBuffer();
    answers.push(answer);
  }
  return answers;
}

describe("the bench's featured route, beside the project", () => {
  it('answers the list, its fields, 304, request ids, revocation, 401 and the quotas as the project does', async () => {
    const seen = [];
    for (const { get, checked, baseUrl, path } of servers()) {
      const first = await list(get, baseUrl);
      const body = await first.text();
      // The seconds to the window's end (t) depend on the moment of asking, which differs between the two.
      const fields = Object.fromEntries(
        FIELDS.map((name) => [name, first.headers.get(name)?.replace(/;t=([1-9]\d*)$/, ';t=(to the end)')]),
      );
      const echoed = await list(get, baseUrl, { 'If-None-Match': fields.etag ?? '', 'X-Request-Id': 'trace-1' });
      setRevoked(path, true);
      const [revoked] = await drained([() => list(get, baseUrl)]);
      setRevoked(path, false);
      const quota = await drained([() => list(get, baseUrl), () => list(get, baseUrl), () => list(get, baseUrl)]);
      const refused = await drained([
        () => get(`${baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${wrongKey(seed.key)}` } }),
        () => get(`${baseUrl}/v1/store/orders`),
      ]);
      const repeated = await twoKeys(baseUrl, checked);
      // The address has failed FAILURES times (the revoked key's request included): even a valid key is
      // not looked at now.
      const [blocked] = await drained([() => list(get, baseUrl)]);
      seen.push({
        status: first.status,
        body,
        fields,
        requestId: /^[0-9a-f-]{36}$/.test(first.headers.get('x-request-id') ?? ''),
        notModified: echoed.status,
        echoedId: echoed.headers.get('x-request-id'),
        revoked: revoked?.status,
        quota: [...quota.map((answer) => answer.status), quota[2]?.headers.get('ratelimit')?.split(';')[1]],
        refused: [...refused.map((answer) => answer.status), repeated, blocked?.status],
      });
    }
    const [fromProject, fromFeatured] = seen;
    expect(fromProject?.status).toBe(200);
    expect(fromProject?.body).toContain('"id":100');
    expect(fromProject?.fields.ratelimit).toBe('"per-key";r=3;t=(to the end)');
    expect(fromProject?.fields['ratelimit-policy']).toBe(`"per-key";q=${QUOTA};w=${WINDOW_SECONDS}`);
    expect(fromProject?.notModified).toBe(304);
    expect(fromProject?.revoked).toBe(401);
    expect(fromProject?.quota).toEqual([200, 200, 429, 'r=0']);
    expect(fromProject?.refused).toEqual([401, 401, 401, 429]);
    expect(fromFeatured).toEqual(fromProject);
  });
});
