// The operation table knows, from each handler, whether its store call checks the key (docs/design.md, "Where
// the key is checked"). It refuses, at start, a contract with a parameter of a kind validation.ts does not build
// the validators' input for, instead of validating such a parameter wrongly.
import type { OpenAPIV3 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { loadContracts } from '../../src/contract/document.js';
import { operationTable } from '../../src/http/operationTable.js';
import type { Handlers } from '../../src/operations/handler.js';
import { handlersByVersion } from '../../src/operations/index.js';

const contracts = loadContracts();
const { v2 } = contracts;
const noHandlers = {} as Handlers<'v2'>;

/** v2's contract with listOrders's `status` parameter changed by `change`. */
function withStatusParameter(change: (parameter: OpenAPIV3.ParameterObject) => void) {
  const document = structuredClone(v2.document);
  const listOrders = document.paths['/store/orders']?.get as OpenAPIV3.OperationObject;
  const status = (listOrders.parameters as OpenAPIV3.ParameterObject[]).find(({ name }) => name === 'status');
  change(status as OpenAPIV3.ParameterObject);
  return { ...v2, document };
}

describe('operationTable', () => {
  it("takes the contract's own parameters", () => {
    expect(() => operationTable('v2', v2, noHandlers)).not.toThrow();
  });

  it.each([
    ['a query array written comma-separated (explode: false)', (p: OpenAPIV3.ParameterObject) => (p.explode = false)],
    ['a query parameter of another style', (p: OpenAPIV3.ParameterObject) => (p.style = 'pipeDelimited')],
    ['a cookie parameter', (p: OpenAPIV3.ParameterObject) => (p.in = 'cookie')],
    [
      'a parameter given as content',
      (p: OpenAPIV3.ParameterObject) => {
        p.content = { 'application/json': { schema: p.schema as OpenAPIV3.SchemaObject } };
        delete p.schema;
      },
    ],
  ])('refuses %s, naming the operation and the parameter', (_kind, change) => {
    expect(() => operationTable('v2', withStatusParameter(change), noHandlers)).toThrow(
      /^listOrders: the parameter status \(in (query|cookie)\) is of a kind validation\.ts does not build$/,
    );
  });
});

describe('the operations whose store call checks the key', () => {
  const checked = ({ operations }: ReturnType<typeof operationTable>) =>
    operations.filter(({ keyCheckedByStore }) => keyCheckedByStore).map(({ operationId }) => operationId);

  it('are those whose handler is declared checksKeyInStore, and no other', () => {
    expect(checked(operationTable('v1', contracts.v1, handlersByVersion.v1))).toEqual(['listOrders', 'cancelOrder', 'sendMessage']);
    expect(checked(operationTable('v2', contracts.v2, handlersByVersion.v2))).toEqual(['cancelOrder', 'sendMessage']);
  });
});
