// Thousands of requests nobody wrote by hand, generated from openapi.yaml for every operation under /v1
// and from openapi.v2.yaml for every operation under /v2, against a real server: valid ones, ones that break one rule, bad credentials and wrong methods. Each response must
// honour the contract and the rule the request was made for. Each operation gets one request of each rule
// first, then FUZZ_RUNS more (300; `npm run fuzz` runs 50,000). The run's seed is in each title; a failure
// prints its path too, and FUZZ_SEED/FUZZ_PATH replay it (with -t naming its operation).
import { mkdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { keyDigest } from '../../src/keys.js';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { expectationProblems } from '../support/fuzz/expectations.js';
import { type OperationSpec, operations } from '../support/fuzz/operations.js';
import { closeConnections, send } from '../support/fuzz/rawHttp.js';
import { type Credentials, type FuzzCase, fuzzCases, oneCaseOfEachRule } from '../support/fuzz/requests.js';
import { callerFor } from '../support/caller.js';
import { FUZZ_SEED, replay } from '../support/fuzz/seed.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

let server: TestServer;
let credentials: Credentials;
const sent = new Map<string, Map<string, number>>();

beforeAll(async () => {
  server = await startServer();
  const { key } = await createKey(server.store);
  const { key: revokedKey } = await createKey(server.store, 'former-customer');
  await server.store.keys.revokeKeyByDigest(keyDigest(revokedKey));
  credentials = { key, revokedKey };
  for (let id = 1; id <= 30; id++) {
    // Some ship dates, completions and cancellations, so that v2's filters have something to tell apart.
    const order = await server.store.orders.addOrder({
      petId: id,
      quantity: id,
      complete: id % 4 === 0,
      ...(id % 2 === 0 && { shipDate: new Date(Date.UTC(2026, 11, id, id % 24)).toISOString() }),
    });
    if (id % 3 === 0) await server.store.orders.shipOrder(order.id);
    if (id % 5 === 0) await server.store.orders.cancelOrder(order.id, await callerFor(server.store));
    if (id <= 10) await server.store.pets.addPet(`pet ${id}`);
  }
});

afterAll(async () => {
  closeConnections();
  await server.close();
  mkdirSync('test-artifacts', { recursive: true });
  const summary = Object.fromEntries(
    [...sent].map(([operationId, rules]) => [operationId, Object.fromEntries(rules)]),
  );
  writeFileSync('test-artifacts/generated-requests.json', `${JSON.stringify(summary, null, 2)}\n`);
});

/** v1's operations by their id alone, as before /v2 was served; v2's with their version. */
const label = ({ version, operationId }: OperationSpec) => (version === 'v1' ? operationId : `${version} ${operationId}`);

function describeCase(fuzzCase: FuzzCase): string {
  const { request } = fuzzCase;
  const body =
    request.body === undefined
      ? ''
      : `\n  body (${request.body.length} bytes): ${JSON.stringify(Buffer.from(request.body.slice(0, 300)).toString('utf8'))}`;
  return `${fuzzCase.rule}: ${request.method} ${request.path}\n  headers: ${JSON.stringify(request.headers).slice(0, 600)}${body}`;
}

function count(operation: OperationSpec, fuzzCase: FuzzCase): void {
  const rules = sent.get(label(operation)) ?? new Map<string, number>();
  const category =
    fuzzCase.expect.kind === 'accepted'
      ? fuzzCase.rule
      : `${fuzzCase.expect.kind}: ${fuzzCase.rule.replace(/^[^:]+: /, '')}`;
  rules.set('total', (rules.get('total') ?? 0) + 1);
  rules.set(category, (rules.get(category) ?? 0) + 1);
  sent.set(label(operation), rules);
}

const cases = operations.map((operation) => ({ name: label(operation), operation }));

describe.each(cases)('generated requests for $name', ({ operation }) => {
  it(`answer one request of each rule, then ${RUNS} more, as the contract says (seed ${FUZZ_SEED})`, { timeout: 0 }, async () => {
    const generated = fuzzCases(operation, credentials);
    // fast-check counts its examples among its runs.
    const examples = oneCaseOfEachRule(generated, FUZZ_SEED).map((fuzzCase): [FuzzCase] => [fuzzCase]);
    await fc.assert(
      fc.asyncProperty(generated, async (fuzzCase) => {
        count(operation, fuzzCase);
        const response = await send(server.baseUrl, fuzzCase.request);
        const problems = expectationProblems(fuzzCase, response, operation);
        if (problems.length > 0) {
          throw new Error(
            `${describeCase(fuzzCase)}\n→ ${response.status} ${response.bodyText.slice(0, 300)}\n  ${problems.join('\n  ')}`,
          );
        }
      }),
      { numRuns: examples.length + RUNS, examples, ...replay },
    );
  });
});
