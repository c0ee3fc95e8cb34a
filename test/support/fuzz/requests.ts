// Requests generated for one operation of the contract, each with what the contract says must happen:
// valid requests, requests that break one rule, bad credentials, and methods the path does not have.
import fc from 'fast-check';
import type { OperationSpec, ParameterSpec } from './operations.js';
import { type Query, queryBreakers, validQuery } from './queryParameters.js';
import {
  type Broken,
  brokenIntegerText,
  brokenValue,
  validIntegerText,
  validValue,
} from './schemaArbitraries.js';

export interface FuzzRequest {
  method: string;
  /** Path and query, with the version's root (`/v1`, `/v2`), percent-encoded. */
  path: string;
  /** A repeated field is an array: it goes on the wire as separate header lines. */
  headers: Record<string, string | string[]>;
  body?: Uint8Array;
}

export type Expectation =
  /** Valid: not refused. The operation may still find nothing (404) or refuse the state (409). */
  | { kind: 'accepted' }
  | { kind: 'refused'; status: number; codes: string[] }
  | { kind: 'unauthorized' }
  | { kind: 'methodNotAllowed' };

export interface FuzzCase {
  operationId: string;
  rule: string;
  request: FuzzRequest;
  expect: Expectation;
}

export interface Credentials {
  key: string;
  revokedKey: string;
}

/** What a valid request is made of, before it is put on the wire. */
interface Parts {
  method: string;
  pathParams: Record<string, string>;
  query: Query;
  headers: Record<string, string | string[]>;
  body?: Uint8Array;
}

const encoder = new TextEncoder();
const MiB = 1024 * 1024;

const invalid = (codes: string[], status = 400): Expectation => ({ kind: 'refused', status, codes });
const ACCEPTED: Expectation = { kind: 'accepted' };
const UNAUTHORIZED: Expectation = { kind: 'unauthorized' };
const METHOD_NOT_ALLOWED: Expectation = { kind: 'methodNotAllowed' };

function toRequest(operation: OperationSpec, parts: Parts): FuzzRequest {
  const path = operation.pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(parts.pathParams[name] ?? ''),
  );
  const query = parts.query.map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  );
  return {
    method: parts.method,
    path: `/${operation.version}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`,
    headers: parts.headers,
    ...(parts.body !== undefined && { body: parts.body }),
  };
}

/** Header text a client can send: visible ASCII, no edge spaces (HTTP trims them). */
const headerText = (minLength: number, maxLength: number) =>
  fc
    .string({ unit: 'grapheme-ascii', minLength, maxLength })
    .map((text) => text.trim())
    .filter((text) => text.length >= minLength);

function validParameterText(parameter: ParameterSpec): fc.Arbitrary<string> {
  if (parameter.schema.type === 'integer') return validIntegerText(parameter.schema);
  const pattern = parameter.schema.pattern as string | undefined;
  if (pattern !== undefined) return fc.stringMatching(new RegExp(pattern, 'u'));
  if (parameter.in === 'header') {
    return fc.oneof(
      fc.constant('*'),
      headerText(0, (parameter.schema.maxLength as number | undefined) ?? 200),
    );
  }
  return validValue(parameter.schema).map(String);
}

function brokenParameterText(parameter: ParameterSpec): fc.Arbitrary<Broken<string>> | undefined {
  if (parameter.schema.type === 'integer') return brokenIntegerText(parameter.schema);
  const maxLength = parameter.schema.maxLength as number | undefined;
  const pattern = parameter.schema.pattern as string | undefined;
  if (parameter.in === 'header' && pattern !== undefined) {
    const matches = new RegExp(pattern, 'u');
    return headerText(1, 300)
      .filter((value) => !matches.test(value))
      .map((value) => ({ rule: 'not matching the pattern', value }));
  }
  if (parameter.in === 'header' && maxLength !== undefined) {
    return headerText(maxLength + 1, maxLength + 2000).map((value) => ({
      rule: 'longer than maxLength',
      value,
    }));
  }
  return undefined;
}

const validContentTypes = (mediaType: string) =>
  fc.constantFrom(
    mediaType,
    `${mediaType}; charset=utf-8`,
    `${mediaType};charset=UTF-8`,
    `${mediaType}; charset="utf-8"`,
    mediaType.toUpperCase(),
  );

const validAuthorization = (key: string) =>
  fc.constantFrom(`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}`);

function validParts(operation: OperationSpec, credentials: Credentials): fc.Arbitrary<Parts> {
  const pathParams = operation.parameters.filter((parameter) => parameter.in === 'path');
  const headerParams = operation.parameters.filter((parameter) => parameter.in === 'header');
  return fc
    .record({
      pathParams: fc.record(
        Object.fromEntries(pathParams.map((parameter) => [parameter.name, validParameterText(parameter)])),
      ),
      query: validQuery(operation),
      headerParams: fc.record(
        Object.fromEntries(headerParams.map((parameter) => [parameter.name, validParameterText(parameter)])),
        {
          requiredKeys: headerParams
            .filter((parameter) => parameter.required)
            .map((parameter) => parameter.name),
        },
      ),
      authorization: validAuthorization(credentials.key),
      requestId: fc.option(headerText(1, 40), { nil: undefined }),
      body: operation.body ? validValue(operation.body.schema) : fc.constant(undefined),
      contentType: operation.body ? validContentTypes(operation.body.mediaType) : fc.constant(undefined),
    })
    .map(
      ({ pathParams: params, query, headerParams: headerValues, authorization, requestId, body, contentType }) => {
        const headers: Record<string, string | string[]> = { ...headerValues, Authorization: authorization };
        if (requestId !== undefined) headers['X-Request-Id'] = requestId;
        if (contentType !== undefined) headers['Content-Type'] = contentType;
        return {
          method: operation.method,
          pathParams: params,
          query,
          headers,
          ...(body !== undefined && { body: encoder.encode(JSON.stringify(body)) }),
        };
      },
    );
}

type Variant = fc.Arbitrary<Omit<FuzzCase, 'operationId'>>;

/** Requests that break one rule of the operation's parameters or body, and nothing else. */
function ruleBreakers(operation: OperationSpec, valid: fc.Arbitrary<Parts>): Variant[] {
  const variants: Variant[] = [];
  for (const parameter of operation.parameters) {
    const broken = parameter.in === 'query' ? undefined : brokenParameterText(parameter);
    if (!broken) continue;
    variants.push(
      fc.tuple(valid, broken).map(([parts, { rule, value }]) => {
        const changed =
          parameter.in === 'path'
            ? { ...parts, pathParams: { ...parts.pathParams, [parameter.name]: value } }
            : { ...parts, headers: { ...parts.headers, [parameter.name]: value } };
        return {
          rule: `${parameter.name}: ${rule}`,
          request: toRequest(operation, changed),
          expect: invalid(['invalid_request']),
        };
      }),
    );
  }
  for (const [parameter, broken] of queryBreakers(operation)) {
    variants.push(
      fc.tuple(valid, broken).map(([parts, { rule, values, codes }]) => {
        const query: Query = [
          ...parts.query.filter(([name]) => name !== parameter.name),
          ...values.map((value): [string, string] => [parameter.name, value]),
        ];
        return {
          rule: `${parameter.name}: ${rule}`,
          request: toRequest(operation, { ...parts, query }),
          expect: invalid(codes),
        };
      }),
    );
  }
  const known = new Set(
    operation.parameters.filter((parameter) => parameter.in === 'query').map((p) => p.name),
  );
  variants.push(
    fc
      .tuple(
        valid,
        fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !known.has(name)),
        fc.string({ maxLength: 20 }),
      )
      .map(([parts, name, value]) => ({
        rule: 'an unknown query parameter',
        request: toRequest(operation, { ...parts, query: [...parts.query, [name, value]] }),
        expect: invalid(['invalid_request']),
      })),
  );
  if (operation.body) variants.push(...bodyBreakers(operation, valid));
  else {
    // An operation without a request body ignores one.
    variants.push(
      fc.tuple(valid, fc.uint8Array({ maxLength: 256 })).map(([parts, body]) => ({
        rule: 'random bytes as a body the operation does not take',
        request: toRequest(operation, { ...parts, body }),
        expect: ACCEPTED,
      })),
    );
  }
  return variants;
}

const withBody = (parts: Parts, body: Uint8Array | undefined, contentType?: string | string[]): Parts => {
  const headers = { ...parts.headers };
  delete headers['Content-Type'];
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  const changed: Parts = { ...parts, headers };
  if (body === undefined) delete changed.body;
  else changed.body = body;
  return changed;
};

function bodyBreakers(operation: OperationSpec, valid: fc.Arbitrary<Parts>): Variant[] {
  const schema = operation.body!.schema;
  const mediaType = operation.body!.mediaType;
  const json = validContentTypes(mediaType);
  const oddContentTypes = fc.oneof(
    fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/vnd.api+json',
      'application/json-patch+json',
      'application/jsonx',
      '*/*',
      'application/*',
      `${mediaType}; charset=iso-8859-1`,
      `${mediaType}; charset=utf-16`,
      `${mediaType}, text/plain`,
      ';;;',
      '',
    ),
    headerText(1, 60).filter((text) => !/^application\/json\s*(;|$)/i.test(text)),
  );
  const make = (
    rule: string,
    expect: Expectation,
    body: fc.Arbitrary<Uint8Array | undefined>,
    contentType: fc.Arbitrary<string | string[] | undefined> = json,
  ) =>
    fc.tuple(valid, body, contentType).map(([parts, bytes, type]) => ({
      rule,
      request: toRequest(operation, withBody(parts, bytes, type)),
      expect,
    }));
  const validBody = validValue(schema).map((value) => encoder.encode(JSON.stringify(value)));
  return [
    make(
      'a body that breaks the schema',
      invalid(['invalid_request']),
      brokenValue(schema).map(({ value }) => encoder.encode(JSON.stringify(value))),
    ),
    make('a missing body', invalid(['invalid_json']), fc.constant(undefined)),
    make('an empty body', invalid(['invalid_json']), fc.constant(new Uint8Array())),
    make(
      'random bytes as the body',
      invalid(['invalid_json', 'invalid_request']),
      fc.uint8Array({ minLength: 1, maxLength: 512 }),
    ),
    make(
      'a body that is not UTF-8',
      invalid(['invalid_json']),
      fc
        .constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80])
        .map((bad) => Uint8Array.from([...encoder.encode('{"message":"'), ...bad, ...encoder.encode('"}')])),
    ),
    make(
      'a prototype-poisoning body',
      invalid(['invalid_json']),
      fc
        .constantFrom(
          '{"message":"x","__proto__":{"a":1}}',
          '{"message":"x","constructor":{"prototype":{"a":1}}}',
        )
        .map((text) => encoder.encode(text)),
    ),
    make(
      'a body over 1 MiB',
      invalid(['payload_too_large'], 413),
      fc.integer({ min: MiB + 1, max: MiB + 4096 }).map((size) => new Uint8Array(size).fill(0x20)),
    ),
    make('an odd content type', invalid(['unsupported_content_type']), validBody, oddContentTypes),
    make('no content type', invalid(['unsupported_content_type']), validBody, fc.constant(undefined)),
    make(
      'a repeated content type',
      invalid(['unsupported_content_type']),
      validBody,
      fc.constant([mediaType, mediaType]),
    ),
  ];
}

/** Every kind of bad credential, on an otherwise valid request. */
function badCredentials(
  operation: OperationSpec,
  valid: fc.Arbitrary<Parts>,
  credentials: Credentials,
): Variant {
  const { key, revokedKey } = credentials;
  const oneCharChanged = fc
    .tuple(
      fc.integer({ min: 4, max: key.length - 1 }),
      fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'),
    )
    .filter(([at, char]) => key[at] !== char)
    .map(([at, char]) => `Bearer ${key.slice(0, at)}${char}${key.slice(at + 1)}`);
  const authorizations: [string, fc.Arbitrary<string | string[] | undefined>][] = [
    ['no credential', fc.constant(undefined)],
    [
      'a wrong scheme',
      fc.constantFrom(
        `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
        `Token ${key}`,
        `Bearer: ${key}`,
        `Bearer${key}`,
        key,
        `Digest ${key}`,
      ),
    ],
    ['an empty token', fc.constantFrom('Bearer', 'Bearer ', 'Bearer    ', '')],
    ['a token with one character changed', oneCharChanged],
    ['a revoked key', fc.constant(`Bearer ${revokedKey}`)],
    [
      'a very long header',
      fc.integer({ min: 1024, max: 8192 }).map((length) => `Bearer ${key}${'A'.repeat(length)}`),
    ],
    ['random Authorization text', headerText(0, 8192)],
    ['two keys in one header', fc.constant(`Bearer ${key}, Bearer ${key}`)],
    [
      'a repeated Authorization field',
      fc.constantFrom([`Bearer ${key}`, `Bearer ${key}`], [`Bearer ${key}`, `Bearer ${revokedKey}`]),
    ],
  ];
  return fc.oneof(
    ...authorizations.map(([rule, authorization]) =>
      fc.tuple(valid, authorization).map(([parts, value]) => {
        const headers = { ...parts.headers };
        delete headers.Authorization;
        if (value !== undefined) headers.Authorization = value;
        return {
          rule,
          request: toRequest(operation, { ...parts, headers }),
          expect: UNAUTHORIZED,
        };
      }),
    ),
  );
}

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

function wrongMethods(operation: OperationSpec, valid: fc.Arbitrary<Parts>): Variant | undefined {
  const others = ALL_METHODS.filter((method) => !operation.pathMethods.includes(method));
  if (others.length === 0) return undefined;
  return fc.tuple(valid, fc.constantFrom(...others), fc.boolean()).map(([parts, method, withKey]) => {
    const headers = { ...parts.headers };
    if (!withKey) delete headers.Authorization;
    return {
      rule: `method ${method}`,
      request: toRequest(operation, { ...parts, method, headers }),
      expect: METHOD_NOT_ALLOWED,
    };
  });
}

/** Every kind of request for one operation, weighted towards the ones that break a rule. */
export function fuzzCases(operation: OperationSpec, credentials: Credentials): fc.Arbitrary<FuzzCase> {
  const valid = validParts(operation, credentials);
  const methods = wrongMethods(operation, valid);
  const variants: fc.WeightedArbitrary<Omit<FuzzCase, 'operationId'>>[] = [
    {
      weight: 3,
      arbitrary: valid.map((parts) => ({
        rule: 'valid',
        request: toRequest(operation, parts),
        expect: ACCEPTED,
      })),
    },
    { weight: 4, arbitrary: fc.oneof(...ruleBreakers(operation, valid)) },
    { weight: 2, arbitrary: badCredentials(operation, valid, credentials) },
    ...(methods ? [{ weight: 1, arbitrary: methods }] : []),
  ];
  return fc.oneof(...variants).map((variant) => ({ operationId: operation.operationId, ...variant }));
}

/**
 * One case of each rule `cases` makes, the first of each among its cases under `seed`: from enough of them
 * that every rule was first seen in the first half. Sent before the random cases, they exercise every rule
 * of an operation on every run, however few random cases follow (at 2,000 a case, some of v2 listOrders'
 * rules came fewer than ten times).
 */
export function oneCaseOfEachRule(cases: fc.Arbitrary<FuzzCase>, seed: number): FuzzCase[] {
  for (let count = 300; ; count *= 2) {
    const firsts = new Map<string, { index: number; fuzzCase: FuzzCase }>();
    fc.sample(cases, { numRuns: count, seed }).forEach((fuzzCase, index) => {
      if (!firsts.has(fuzzCase.rule)) firsts.set(fuzzCase.rule, { index, fuzzCase });
    });
    const lastFirstSeen = Math.max(...[...firsts.values()].map(({ index }) => index));
    if (lastFirstSeen < count / 2) return [...firsts.values()].map(({ fuzzCase }) => fuzzCase);
  }
}
