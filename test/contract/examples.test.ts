// Every example in both contracts comes true on a server set up as the README's "Contract testing this
// service" says: a new database, `store-orders init --examples`, and the key it prints. Outside tools
// (Portman, Dredd, Specmatic) build their requests from these examples; an example added later that names
// no record, or a record in another state, fails here.
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommandLine } from '../../src/cli/commandLine.js';
import { type ApiVersion, API_VERSIONS, loadContracts, operationsOf } from '../../src/contract/document.js';
import { databaseUrl } from '../../src/store/backends.js';
import { validatingFetch } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const contracts = loadContracts();

/** Runs a `store-orders` command line in this process, as the CLI's main does. */
async function storeOrders(server: TestServer, ...argv: string[]) {
  const out: string[] = [];
  const notes: string[] = [];
  const code = await runCommandLine(argv, {
    env: { DATABASE_URL: databaseUrl(server.database) },
    out: (line) => out.push(line),
    note: (line) => notes.push(line),
  });
  return { code, out, notes };
}

type Operation = ReturnType<typeof operationsOf>[number];

function parametersOf({ definition }: Operation, version: ApiVersion): OpenAPIV3.ParameterObject[] {
  return (definition.parameters ?? []).map((parameter) =>
    '$ref' in parameter
      ? contracts[version].document.components?.parameters?.[parameter.$ref.replace('#/components/parameters/', '')]
      : parameter,
  ) as OpenAPIV3.ParameterObject[];
}

/** The operation's request, each parameter the example it shows (only the path's, unless `every`). */
function exampleRequest(version: ApiVersion, operation: Operation, key: string, every: boolean, pathValues = {}) {
  const headers = new Headers({ Authorization: `Bearer ${key}` });
  const query = new URLSearchParams();
  let path = operation.path;
  for (const { name, in: where, example } of parametersOf(operation, version)) {
    const value = (pathValues as Record<string, unknown>)[name] ?? example;
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else if (every && example !== undefined && where === 'query') {
      for (const item of Array.isArray(example) ? example : [example]) query.append(name, String(item));
    } else if (every && example !== undefined && where === 'header') headers.set(name, String(example));
  }
  const body = (operation.definition.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content[
    'application/json'
  ]?.example as unknown;
  if (body !== undefined) headers.set('Content-Type', 'application/json');
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return {
    url: `${contracts[version].root}${path}${search}`,
    init: { method: operation.method.toUpperCase(), headers, ...(body !== undefined && { body: JSON.stringify(body) }) },
  };
}

type ResponseExample = { status: number; example: unknown };

function resolvedResponse({ definition }: Operation, version: ApiVersion, status: string): OpenAPIV3.ResponseObject | undefined {
  const response = definition.responses[status];
  if (response === undefined || !('$ref' in response)) return response;
  return contracts[version].document.components?.responses?.[response.$ref.replace('#/components/responses/', '')] as
    | OpenAPIV3.ResponseObject
    | undefined;
}

function responseExamples(operation: Operation, version: ApiVersion): ResponseExample[] {
  return Object.keys(operation.definition.responses).flatMap((status) => {
    const example = resolvedResponse(operation, version, status)?.content?.['application/json']?.example as unknown;
    return example === undefined || status === 'default' ? [] : [{ status: Number(status), example }];
  });
}

/** The error codes whose examples name a record by its id, in their message. */
const NAMING_A_RECORD = [
  'order_not_found',
  'order_already_shipped',
  'pet_not_found',
  'message_not_found',
  'webhook_endpoint_not_found',
];

describe.each(API_VERSIONS)('the examples of the %s contract, on a server set up by init --examples', (version) => {
  let server: TestServer;
  let key: string;
  const operations = operationsOf(contracts[version].document);
  const send = async ({ url, init }: ReturnType<typeof exampleRequest>) => {
    const response = await validatingFetch(`${server.baseUrl}${url}`, init);
    const text = await response.text();
    return { response, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };

  beforeAll(async () => {
    server = await startServer();
    const init = await storeOrders(server, 'init', '--examples');
    expect(init.code, init.notes.join('\n')).toBe(0);
    expect(init.out).toHaveLength(1);
    key = init.out[0] as string;
    expect(key).toMatch(/^sok_[0-9A-Za-z]{39}$/);
  });
  afterAll(() => server.close());

  // Reads first: the writes below change what they find.
  it.each(operations.filter(({ method }) => method === 'get'))(
    'answers $operationId with its 200 example, exactly, for the path examples',
    async (operation) => {
      const { response, body } = await send(exampleRequest(version, operation, key, false));
      expect(response.status).toBe(200);
      expect(body).toEqual(responseExamples(operation, version).find(({ status }) => status === 200)?.example);
    },
  );

  it.each(operations)('answers $operationId with the example error that names a record, exactly', async (operation) => {
    const naming = responseExamples(operation, version).filter(({ example }) =>
      NAMING_A_RECORD.includes((example as { code: string }).code),
    );
    for (const { status, example } of naming) {
      const named = /((?:msg|we)_[0-9A-Za-z]+|[0-9]+)/.exec((example as { message: string }).message)?.[1];
      const pathParameter = parametersOf(operation, version).find(({ in: where }) => where === 'path');
      expect(pathParameter, `${operation.operationId} ${status}`).toBeDefined();
      const { response, body } = await send(
        exampleRequest(version, operation, key, false, { [pathParameter?.name as string]: named }),
      );
      expect({ status: response.status, body }).toEqual({ status, body: example });
    }
  });

  it.each(operations)('answers $operationId, to a key without its scope, with its 403 example exactly', async (operation) => {
    const forbidden = responseExamples(operation, version).find(({ status }) => status === 403);
    if (forbidden === undefined) return;
    const scopeless = await storeOrders(server, 'keys', 'create', '--account', 'examples', '--scopes', '');
    const { response, body } = await send(exampleRequest(version, operation, scopeless.out[0] as string, true));
    const header = ((resolvedResponse(operation, version, '403')?.headers?.['WWW-Authenticate'] ?? {}) as OpenAPIV3.HeaderObject).example;
    expect({ status: response.status, body, authenticate: response.headers.get('www-authenticate') }).toEqual({
      status: 403,
      body: forbidden.example,
      authenticate: header,
    });
  });

  if (version === 'v2') {
    it('makes the cursors of the examples for the example orders', async () => {
      const document = contracts.v2.document;
      const { response, body } = await send({
        url: '/v2/store/orders?limit=1',
        init: { method: 'GET', headers: new Headers({ Authorization: `Bearer ${key}` }) },
      });
      const nextCursor = (document.components?.schemas?.OrderPage as OpenAPIV3.SchemaObject).properties?.nextCursor;
      expect((body as { nextCursor: string }).nextCursor).toBe((nextCursor as OpenAPIV3.SchemaObject).example);
      expect(response.headers.get('link')).toBe((document.components?.headers?.NextPageLink as OpenAPIV3.HeaderObject).example);
    });

    it.each([
      { path: '/v2/webhook-endpoints', page: 'WebhookEndpointPage', cursor: 'EndpointPageCursor' },
      { path: '/v2/webhook-endpoints/we_2Jc8rT5mQw0xZ7bLk3sVd9/deliveries', page: 'WebhookDeliveryPage', cursor: 'DeliveryPageCursor' },
    ])('makes the cursor of the examples of $page after the first example', async ({ path, page, cursor }) => {
      const { components } = contracts.v2.document;
      const { body } = await send({ url: `${path}?limit=1`, init: { method: 'GET', headers: new Headers({ Authorization: `Bearer ${key}` }) } });
      const nextCursor = (components?.schemas?.[page] as OpenAPIV3.SchemaObject).properties?.nextCursor as OpenAPIV3.SchemaObject;
      expect((body as { nextCursor: string }).nextCursor).toBe(nextCursor.example);
      // The endpoints' list shows no cursor example (a comment in the contract says why).
      const example = (components?.parameters?.[cursor] as OpenAPIV3.ParameterObject).example as unknown;
      expect(example).toBe(cursor === 'EndpointPageCursor' ? undefined : nextCursor.example);
    });
  }

  // Last, as a tool runs them: each operation with every example it shows, the cancel of the pending order included.
  it.each(operations)('answers $operationId with success for every example it shows', async (operation) => {
    const { response } = await send(exampleRequest(version, operation, key, true));
    const success = Object.keys(operation.definition.responses).filter((status) => /^2/.test(status));
    expect(success).toContain(String(response.status));
  });
});

describe('store-orders init --examples', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('writes nothing more when run again on its own output, and prints another key', async () => {
    const first = await storeOrders(server, 'init', '--examples');
    const again = await storeOrders(server, 'init', '--examples');
    expect([first.code, again.code]).toEqual([0, 0]);
    expect(again.out[0]).not.toBe(first.out[0]);
    expect(await server.store.orders.listAllOrders()).toHaveLength(2);
    expect(await server.store.messages.listMessages()).toHaveLength(1);
    expect(await server.store.pets.findPet(2)).toBeUndefined();
  });

  it('refuses a database that holds anything else, and writes nothing to it', async () => {
    await server.store.orders.addOrder({ petId: 9, quantity: 1 });
    const refused = await storeOrders(server, 'init', '--examples');
    expect(refused.code).toBe(1);
    expect(refused.out).toEqual([]);
    expect(refused.notes.join('\n')).toMatch(/holds data other than the examples/);
    expect(await server.store.keys.listKeys()).toHaveLength(2);
  });
});
