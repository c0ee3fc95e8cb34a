// scripts/contract-tools.mjs: which runs it plans, and how it reads each tool's verdict from what the tool
// printed. The tools themselves run in CI's contract-tools stage, against servers of their own.
import { describe, expect, it } from 'vitest';
import {
  TOOLS,
  dreddResult,
  newmanResult,
  plannedRuns,
  specmaticExamples,
  specmaticResult,
} from '../../scripts/contract-tools.mjs';

const CONTRACTS = [
  { major: 1, document: 'openapi.yaml', rendition: 'generated/openapi.3.1.yaml' },
  { major: 2, document: 'openapi.v2.yaml', rendition: 'generated/openapi.v2.3.1.yaml' },
];
const named = (...names: string[]) => TOOLS.filter(({ name }) => names.includes(name));

describe('plannedRuns', () => {
  it('runs every tool on both contracts, and the 3.1 readers on each rendition that exists', () => {
    const runs = plannedRuns(named('portman', 'dredd'), CONTRACTS, (file: string) => file.endsWith('v2.3.1.yaml'));
    expect(runs.map(({ tool, contract, document, basePath }) => [tool.name, contract, document, basePath])).toEqual([
      ['portman', 'v1', 'openapi.yaml', '/v1'],
      ['dredd', 'v1', 'openapi.yaml', '/v1'],
      ['portman', 'v2', 'openapi.v2.yaml', '/v2'],
      ['dredd', 'v2', 'openapi.v2.yaml', '/v2'],
      ['portman', 'v2 3.1', 'generated/openapi.v2.3.1.yaml', '/v2'],
    ]);
  });

  it('plans no 3.1 run for a contract without a rendition', () => {
    const runs = plannedRuns(named('portman'), [{ major: 1, document: 'openapi.yaml' }], () => true);
    expect(runs.map(({ contract }) => contract)).toEqual(['v1']);
  });
});

describe('newmanResult', () => {
  it('counts passed assertions, and failed assertions and unanswered requests as failures', () => {
    const report = {
      run: {
        stats: { assertions: { total: 10, failed: 1 } },
        failures: [
          { error: { test: 'Status code is 2xx', message: 'found 404' }, source: { name: 'Cancel an order' } },
          { error: { message: 'getaddrinfo ENOTFOUND api.example' }, source: { name: 'Send a message' } },
        ],
      },
    };
    expect(newmanResult(report)).toEqual({
      passed: 9,
      failed: 2,
      failures: ['Cancel an order: Status code is 2xx: found 404', 'Send a message: getaddrinfo ENOTFOUND api.example'],
    });
  });
});

describe('dreddResult', () => {
  it('reads the complete line and names each failed transaction with its first reason', () => {
    const output = [
      '\u001b[32mpass\u001b[39m: GET (200) /store/orders duration: 30ms',
      '\u001b[31mfail\u001b[39m: DELETE (204) /store/orders/42 duration: 12ms',
      '\u001b[34minfo\u001b[39m: Displaying failed tests...',
      '\u001b[31mfail\u001b[39m: DELETE (204) /store/orders/42 duration: 12ms',
      "\u001b[31mfail\u001b[39m: statusCode: Expected status code '204', but got '404'.",
      '\u001b[32mcomplete\u001b[39m: 1 passing, 1 failing, 0 errors, 25 skipped, 27 total',
    ].join('\n');
    expect(dreddResult(output)).toEqual({
      passed: 1,
      failed: 1,
      failures: ["DELETE (204) /store/orders/42: statusCode: Expected status code '204', but got '404'."],
    });
  });

  it('fails a run that never finished', () => {
    expect(dreddResult('error: the API description could not be parsed')).toMatchObject({ passed: 0, failed: 1 });
  });
});

describe('specmaticResult', () => {
  it('reads the Tests run line and names each unsuccessful scenario with its last reason line', () => {
    const output = [
      'Unsuccessful Scenarios:',
      '',
      '  "Scenario: GET /pets/(petId:number) -> 200 FAILED"',
      '        Reason:',
      '      >> RESPONSE.STATUS',
      '          Specification expected status 200 but response contained status 404',
      '',
      'Tests run: 16, Successes: 14, Failures: 1, WIP: 0, Errors: 1',
    ].join('\n');
    expect(specmaticResult(output)).toEqual({
      passed: 14,
      failed: 2,
      failures: [
        'GET /pets/(petId:number) -> 200: Specification expected status 200 but response contained status 404',
      ],
    });
  });

  it('fails a run that never finished', () => {
    expect(specmaticResult('Exception in thread "main"')).toMatchObject({ passed: 0, failed: 1 });
  });

  it('fails a run of other than one test per example', () => {
    const output = 'Tests run: 18, Successes: 18, Failures: 0, WIP: 0, Errors: 0';
    expect(specmaticResult(output, 18)).toEqual({ passed: 18, failed: 0, failures: [] });
    expect(specmaticResult(output, 4)).toEqual({ passed: 18, failed: 1, failures: ['18 tests run for 4 examples'] });
  });
});

describe('specmaticExamples', () => {
  const contract = {
    paths: {
      '/orders/{orderId}': {
        parameters: [{ $ref: '#/components/parameters/OrderId' }],
        get: {
          operationId: 'getOrder',
          parameters: [
            { name: 'fields', in: 'query', example: ['id', 'status'] },
            { name: 'If-None-Match', in: 'header', example: '"etag"' },
            { name: 'Idempotency-Key', in: 'header' },
          ],
          responses: {
            '200': { $ref: '#/components/responses/Order' },
            '404': { content: { 'application/json': { example: { code: 'order_not_found' } } } },
          },
        },
        delete: { operationId: 'cancelOrder', responses: { '409': {}, '204': {}, default: {} } },
      },
      '/messages': {
        post: {
          operationId: 'sendMessage',
          requestBody: { content: { 'application/json': { example: { message: 'Hello' } } } },
          responses: { '202': { description: 'Queued' } },
        },
      },
    },
    components: {
      parameters: { OrderId: { name: 'orderId', in: 'path', required: true, example: 1 } },
      responses: { Order: { content: { 'application/json': { example: { id: 1 } } } } },
    },
  };

  it("makes one per operation from the contract's examples, with its first 2xx status", () => {
    expect(specmaticExamples(contract)).toEqual([
      {
        name: 'getOrder',
        example: {
          'http-request': {
            method: 'GET',
            path: '/orders/1',
            query: { fields: ['id', 'status'] },
            headers: { 'If-None-Match': '"etag"' },
          },
          'http-response': { status: 200, body: { id: 1 } },
        },
      },
      {
        name: 'cancelOrder',
        example: { 'http-request': { method: 'DELETE', path: '/orders/1' }, 'http-response': { status: 204 } },
      },
      {
        name: 'sendMessage',
        example: {
          'http-request': { method: 'POST', path: '/messages', body: { message: 'Hello' } },
          'http-response': { status: 202 },
        },
      },
    ]);
  });
});
