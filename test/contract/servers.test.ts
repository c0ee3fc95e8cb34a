// An operation's own `servers` replace the document's for tools that honour them (openapi-to-postman,
// which Portman uses, sends each request to its operation's first server). So an operation that lists
// servers of its own lists the document's first, in the same order: a tool given the document's base URL
// sends it there like every other operation.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Server {
  url: string;
}
interface Contract {
  servers: Server[];
  paths: Record<string, Record<string, { operationId?: string; servers?: Server[] } & Record<string, unknown>> & { servers?: Server[] }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe.each(['openapi.yaml', 'openapi.v2.yaml'])('%s', (file) => {
  const contract = parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Contract;
  const own = Object.entries(contract.paths).flatMap(([path, item]) => [
    ...(item.servers ? [{ where: path, servers: item.servers }] : []),
    ...METHODS.flatMap((method) => {
      const servers = item[method]?.servers;
      return servers ? [{ where: `${method} ${path}`, servers }] : [];
    }),
  ]);

  it('lists the document servers first, in order, wherever an operation or path lists its own', () => {
    const documentUrls = contract.servers.map(({ url }) => url);
    for (const { where, servers } of own) {
      expect(servers.slice(0, documentUrls.length).map(({ url }) => url), where).toEqual(documentUrls);
    }
  });

  it("keeps the specification's quickstart address for sendMessage", () => {
    const send = own.find(({ where }) => where === 'post /messages');
    expect(send?.servers.map(({ url }) => url)).toContainEqual(expect.stringMatching(/^https:\/\/quickstart\./));
  });
});
