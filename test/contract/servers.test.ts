// No operation or path lists servers of its own: openapi-to-postman (which Portman uses) writes any such entry
// as a literal host instead of `{{baseUrl}}`, so a contract-test job's base URL would never reach that
// operation. The specification's quickstart address for sendMessage stays where a reader finds it: in the
// operation's description.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HTTP_METHODS } from '../../src/contract/document.js';

interface Operation {
  operationId?: string;
  description?: string;
  servers?: unknown[];
}
interface Contract {
  paths: Record<string, Record<string, Operation> & { servers?: unknown[] }>;
}

describe.each(['openapi.yaml', 'openapi.v2.yaml'])('%s', (file) => {
  const contract = parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Contract;
  const operations = Object.values(contract.paths).flatMap((item) =>
    HTTP_METHODS.flatMap((method) => (item[method] ? [item[method]] : [])),
  );

  it('has no servers of an operation or a path, only the document\'s', () => {
    const own = Object.entries(contract.paths).flatMap(([path, item]) => [
      ...(item.servers ? [path] : []),
      ...HTTP_METHODS.flatMap((method) => (item[method]?.servers ? [`${method} ${path}`] : [])),
    ]);
    expect(own).toEqual([]);
  });

  it("keeps the specification's quickstart address in sendMessage's description", () => {
    const send = operations.find(({ operationId }) => operationId === 'sendMessage');
    expect(send?.description).toMatch(/`https:\/\/quickstart\.store-orders\.example\/v[12]`/);
  });
});
