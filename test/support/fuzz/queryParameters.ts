// Query parameters of generated requests: valid values as the wire carries them (an array parameter as
// the field repeated, `style: form, explode: true`), values that break one rule, and what the contract's
// prose adds to its schemas: a parameter only the server can make a valid value for, and refusals with a
// code of their own.
import fc from 'fast-check';
import type { OperationSpec, ParameterSpec } from './operations.js';
import {
  type Broken,
  brokenIntegerText,
  brokenText,
  brokenTextArray,
  validIntegerText,
  validValue,
} from './schemaArbitraries.js';

export type Query = [string, string][];

/** A query parameter's values that break one rule, and the codes the refusal may carry. */
export interface QueryBreaker {
  rule: string;
  values: string[];
  codes: string[];
}


const named = (operation: OperationSpec, parameter: ParameterSpec) =>
  `${operation.version} ${operation.operationId} ${parameter.name}`;

/** The lists' cursors are opaque: only a page can give one, so a generated valid request has none. */
const OPAQUE = new Set(['v2 listOrders cursor', 'v2 listWebhookEndpoints cursor', 'v2 listWebhookDeliveries cursor']);
/** The lists whose cursors hold a position alone: every forged one is not the server's. */
const POSITION_CURSORS = new Set(['v2 listWebhookEndpoints cursor', 'v2 listWebhookDeliveries cursor']);

const OUT_OF_RANGE = ['limit_out_of_range'];
/** The codes the prose gives a rule, where it is not `invalid_request`. */
const LIMIT_CODES = {
  'below the minimum': OUT_OF_RANGE,
  'above the maximum': OUT_OF_RANGE,
  'int64 extremes': OUT_OF_RANGE,
  'a huge number': OUT_OF_RANGE,
};
const OWN_CODES: Record<string, Record<string, string[]>> = {
  'v2 listOrders limit': LIMIT_CODES,
  'v2 listWebhookEndpoints limit': LIMIT_CODES,
  'v2 listWebhookDeliveries limit': LIMIT_CODES,
};

const base64url = (json: string) => Buffer.from(json).toString('base64url');

/** Cursors of the right form that the server did not make, or made for other filters. */
const forgedCursors: fc.Arbitrary<QueryBreaker> = fc.oneof(
  fc
    .stringMatching(/^[A-Za-z0-9_-]{1,512}$/)
    .map((cursor) => ({ rule: 'a cursor the server did not make', values: [cursor], codes: ['invalid_cursor'] })),
  fc
    .constantFrom(
      '{"a":-1,"f":"x"}',
      '{"a":1.5,"f":"x"}',
      '{"a":"1","f":"x"}',
      '{"a":9007199254740992,"f":"x"}',
      '{"a":1,"f":1}',
      '{"a":1}',
      '{"f":"x"}',
      'null',
      '[]',
      '{"a":1,"f":"x"',
    )
    .map((json) => ({ rule: 'a forged cursor', values: [base64url(json)], codes: ['invalid_cursor'] })),
  fc
    .tuple(fc.nat(), fc.string({ maxLength: 24 }))
    .map(([afterId, digest]) => ({
      rule: 'a cursor made for other filters',
      values: [base64url(JSON.stringify({ a: afterId, f: digest }))],
      codes: ['cursor_mismatch'],
    })),
);

function validValues(parameter: ParameterSpec): fc.Arbitrary<string[]> {
  const { schema } = parameter;
  if (schema.type === 'array') return (validValue(schema) as fc.Arbitrary<unknown[]>).map((items) => items.map(String));
  if (schema.type === 'integer') return validIntegerText(schema).map((value) => [value]);
  return validValue(schema).map((value) => [String(value)]);
}

/** The operation's query parameters, each present or not, with valid values (a required one always). */
export function validQuery(operation: OperationSpec): fc.Arbitrary<Query> {
  const parameters = operation.parameters.filter(
    (parameter) => parameter.in === 'query' && !OPAQUE.has(named(operation, parameter)),
  );
  return fc
    .record(Object.fromEntries(parameters.map((parameter) => [parameter.name, validValues(parameter)])), {
      requiredKeys: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    })
    .map((values) =>
      Object.entries(values).flatMap(([name, list]) => list.map((value): [string, string] => [name, value])),
    );
}

function brokenValues(parameter: ParameterSpec): fc.Arbitrary<Broken<string[]>> | undefined {
  const { schema } = parameter;
  const one = (broken: fc.Arbitrary<Broken<string>> | undefined) =>
    broken?.map(({ rule, value }) => ({ rule, value: [value] }));
  switch (schema.type) {
    case 'array':
      return brokenTextArray(schema);
    case 'integer':
      return one(brokenIntegerText(schema));
    case 'boolean':
      return one(
        fc
          .oneof(fc.constantFrom('TRUE', 'False', '1', '0', 'yes', ''), fc.string({ maxLength: 10 }))
          .filter((text) => text !== 'true' && text !== 'false')
          .map((value) => ({ rule: 'not a boolean', value })),
      );
    default:
      return one(brokenText(schema));
  }
}

/** For each query parameter, values that break one of its rules, with the codes that may refuse them. */
export function queryBreakers(operation: OperationSpec): [ParameterSpec, fc.Arbitrary<QueryBreaker>][] {
  const breakers: [ParameterSpec, fc.Arbitrary<QueryBreaker>][] = [];
  for (const parameter of operation.parameters.filter(({ in: where }) => where === 'query')) {
    const name = named(operation, parameter);
    const ownCodes = OWN_CODES[name] ?? {};
    const choices: fc.Arbitrary<QueryBreaker>[] = [];
    const broken = brokenValues(parameter);
    if (broken) {
      choices.push(
        broken.map(({ rule, value }) => ({ rule, values: value, codes: ownCodes[rule] ?? ['invalid_request'] })),
      );
    }
    if (parameter.schema.type !== 'array' && !OPAQUE.has(name)) {
      choices.push(
        fc.tuple(validValues(parameter), validValues(parameter)).map(([first, second]) => ({
          rule: 'the parameter repeated',
          values: [...first, ...second],
          codes: ['invalid_request'],
        })),
      );
    }
    if (name === 'v2 listOrders cursor') choices.push(forgedCursors);
    if (POSITION_CURSORS.has(name)) {
      choices.push(forgedCursors.map((forged) => ({ ...forged, rule: 'a cursor not of this list', codes: ['invalid_cursor'] })));
    }
    breakers.push([parameter, fc.oneof(...choices)]);
  }
  return breakers;
}
