// The one message of a 400 invalid_request, from Ajv's errors: by hand-built lists for each rule, and by
// the real errors of the contract's own schemas compiled the way openapi-backend composes them.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../src/contract/document.js';
import { describeValidationErrors } from '../../src/http/validation.js';

function error(fields: Partial<ErrorObject> & Pick<ErrorObject, 'keyword'>): ErrorObject {
  return { instancePath: '', schemaPath: '#', params: {}, ...fields };
}

/** What openapi-backend adds for a body that is not an object (see validation.ts). */
const parseError = error({
  keyword: 'parse',
  schemaPath: '#/requestBody',
  params: [],
  message: 'Unexpected token',
});
const contractMismatch = 'The request does not match the contract';

describe('describeValidationErrors, on hand-built errors', () => {
  it('says the request does not match when there is no error', () => {
    expect(describeValidationErrors([])).toBe(contractMismatch);
  });

  it('skips the parse errors, and says the request does not match when nothing else is left', () => {
    expect(describeValidationErrors([parseError, parseError])).toBe(contractMismatch);
  });

  it('describes the first error that is not a parse error, and that one only', () => {
    expect(
      describeValidationErrors([
        parseError,
        error({ keyword: 'type', instancePath: '/requestBody', message: 'must be object' }),
        error({ keyword: 'type', instancePath: '/path/orderId', message: 'must be integer' }),
      ]),
    ).toBe('body: must be object');
  });

  it('says a missing body is required', () => {
    expect(
      describeValidationErrors([
        error({
          keyword: 'required',
          params: { missingProperty: 'requestBody' },
          message: "must have required property 'requestBody'",
        }),
      ]),
    ).toBe('body: is required');
  });

  it('names a missing member by the object it is missing from, in Ajv words', () => {
    expect(
      describeValidationErrors([
        error({
          keyword: 'required',
          instancePath: '/requestBody',
          params: { missingProperty: 'message' },
          message: "must have required property 'message'",
        }),
      ]),
    ).toBe("body: must have required property 'message'");
  });

  it('names a member that is not allowed', () => {
    expect(
      describeValidationErrors([
        error({
          keyword: 'additionalProperties',
          instancePath: '/requestBody',
          params: { additionalProperty: 'priority' },
          message: 'must NOT have additional properties',
        }),
      ]),
    ).toBe('body: must not have the property "priority"');
  });

  it('says "is invalid" when Ajv gave no message', () => {
    const withoutMessage = error({ keyword: 'format', instancePath: '/requestBody/shipDate' });
    expect(describeValidationErrors([withoutMessage])).toBe('body.shipDate: is invalid');
  });

  it.each([
    ['/requestBody', 'body'],
    ['/requestBody/message', 'body.message'],
    ['/requestBody/items/0/name', 'body.items.0.name'],
    ['/path/orderId', 'orderId'],
    ['/query/limit', 'limit'],
    ['/header/idempotency-key', 'idempotency-key'],
    ['/query', 'query'],
    ['/path', 'path'],
    ['', 'request'],
  ])('names the field at %j as %j', (instancePath, field) => {
    expect(describeValidationErrors([error({ keyword: 'type', instancePath, message: 'is wrong' })])).toBe(
      `${field}: is wrong`,
    );
  });
});

describe('describeValidationErrors, on the errors Ajv gives for the contract', () => {
  const { components } = loadContract().document;
  const ajv = new Ajv({ strict: false });
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
  // openapi-backend validates an object that holds the body under `requestBody` and each parameter under
  // where it came from, one schema for the body and one for the parameters.
  const validateBody = ajv.compile({
    type: 'object',
    properties: { requestBody: components?.schemas?.SendMessageRequest },
    required: ['requestBody'],
  });
  const validateParameters = ajv.compile({
    type: 'object',
    properties: {
      path: {
        type: 'object',
        additionalProperties: false,
        properties: { orderId: (components?.parameters?.OrderId as { schema: object }).schema },
        required: ['orderId'],
      },
      query: { type: 'object', additionalProperties: false, properties: {} },
    },
  });

  function messageFor(validate: ValidateFunction, request: object): string {
    expect(validate(request)).toBe(false);
    return describeValidationErrors(validate.errors ?? []);
  }

  it.each([
    ['no body', {}, 'body: is required'],
    ['a body that is not an object', { requestBody: 'hello' }, 'body: must be object'],
    ['no message', { requestBody: {} }, "body: must have required property 'message'"],
    ['a message that is not a string', { requestBody: { message: 42 } }, 'body.message: must be string'],
    [
      'an empty message',
      { requestBody: { message: '' } },
      'body.message: must NOT have fewer than 1 characters',
    ],
    [
      'a message too long',
      { requestBody: { message: 'x'.repeat(10_001) } },
      'body.message: must NOT have more than 10000 characters',
    ],
    [
      'an unknown member',
      { requestBody: { message: 'x', priority: 1 } },
      'body: must not have the property "priority"',
    ],
  ])('describes %s', (_name, request, message) => {
    expect(messageFor(validateBody, request)).toBe(message);
  });

  it.each([
    ['an order id that is not an integer', { path: { orderId: 1.5 } }, 'orderId: must be integer'],
    ['an order id below 1', { path: { orderId: 0 } }, 'orderId: must be >= 1'],
    [
      'a query parameter the operation does not have',
      { path: { orderId: 1 }, query: { x: '1' } },
      'query: must not have the property "x"',
    ],
  ])('describes %s', (_name, request, message) => {
    expect(messageFor(validateParameters, request)).toBe(message);
  });
});
