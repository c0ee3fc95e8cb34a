// `npm run test:prism` runs again only the test files that send requests through the contract client
// (test/support/http.ts), which the pass puts Prism in front of: test/support/setupNeeds.ts reads them from
// the files and the test modules they import. vitest.config.ts runs a few of those directly only, each for a
// reason given there; a file that sends nothing needs no entry, so an entry must name one that sends.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { directOnly } from '../../vitest.config.js';
import { CONTRACT_CLIENT, testFilesNeeding } from '../support/setupNeeds.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sending = testFilesNeeding('prism');

/** The test files an entry names: itself, or with `folder/**` every one under that folder. */
function named(entry: string): string[] {
  if (!entry.endsWith('/**')) return [entry];
  const folder = entry.slice(0, -'/**'.length);
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => join(folder, path));
}

describe('the pass through Prism', () => {
  it('knows the contract client by the names test/support/http.ts exports it under', () => {
    const client = readFileSync(join(root, 'test/support/http.ts'), 'utf8');
    const exported = [...client.matchAll(/^export (?:async )?function (\w+)/gm)].map(([, name]) => name);
    expect(exported).toEqual(expect.arrayContaining(CONTRACT_CLIENT));
  });

  it('runs again the files that send through the contract client, whether they import it or a test module does', () => {
    // apiClient and rawRequest, imported by the file itself.
    expect(sending).toContain('test/operations/cancelOrder.test.ts');
    // validatingFetch, handed to another client as its fetch.
    expect(sending).toContain('test/clients/heyApi/sdk.test.ts');
    // rawRequest through test/support/metrics.ts.
    expect(sending).toContain('test/telemetry/metrics.test.ts');
  });

  it('leaves out the files that send nothing through it: unit tests, raw sockets, processes of their own', () => {
    for (const file of [
      'test/keys.test.ts',
      'test/delivery/retryPolicy.test.ts',
      'test/http/idleConnections.test.ts',
      'test/http/stalledReaders.test.ts',
      'test/telemetry/requestLog.test.ts',
      'test/scale/delivery.test.ts',
    ]) {
      expect(sending).not.toContain(file);
    }
  });

  it('runs directly only the files vitest.config.ts names, each entry naming at least one file that sends', () => {
    for (const entry of directOnly) {
      const files = named(entry);
      expect(files.filter((file) => sending.includes(file)), `${entry} names no file that sends through the client`).not.toEqual([]);
    }
  });
});
