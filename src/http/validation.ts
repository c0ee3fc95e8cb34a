// Contract validation of a request's parameters and body (Ajv validators that openapi-backend compiles),
// and the one message of its 400: the first thing found wrong, named by the field the client knows
// (`body.message`, `orderId`), not by openapi-backend's internal paths.
import type { ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';
import { andThen, type Awaitable } from '../awaitable.js';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';
import type { Input } from '../contract/types.js';

export interface Validation {
  errors: ErrorObject[] | null;
}

/**
 * What the validators check, in the shape openapi-backend compiles them for, built from what Fastify has
 * already parsed: openapi-backend's own request parser would parse the path, query and headers again.
 */
export interface ValidationInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The operation's header parameters only, by their lower-case names: the schema allows any other. */
  header: Record<string, unknown>;
  requestBody: unknown;
}

export interface HeaderParameter {
  name: string;
  /** The name in lower case, as Node keys `request.headers`. */
  field: string;
}

interface ValidatedOperation {
  definition: OpenAPIV3.OperationObject;
  headerParameters: HeaderParameter[];
  /** Its query parameters that take an array: one value arrives as a string. */
  arrayQueryParameters: ReadonlySet<string>;
  validate(input: ValidationInput): Awaitable<Validation>;
}

/** The operation's input, checked against the contract, or the 400 that says what is wrong with it. */
export function validatedInput(
  operation: ValidatedOperation,
  request: FastifyRequest,
  body: unknown,
): Awaitable<{ input: Input<never> } | { refusal: ErrorAnswer<400> }> {
  if (!hasAnythingToValidate(operation, request)) return { input: inputOf(request, NONE, NONE, body, NONE) };
  // Copies: the validators coerce in place (coerceTypes), and the handler is given the coerced values.
  const path = { ...(request.params as Record<string, string>) };
  const query = queryOf(operation, request.query as Record<string, string | string[]>);
  const header: Record<string, unknown> = {};
  for (const { field } of operation.headerParameters) {
    if (request.headers[field] !== undefined) header[field] = request.headers[field];
  }
  return andThen(operation.validate({ path, query, header, requestBody: body }), ({ errors }) =>
    errors ? { refusal: invalidRequest(errors) } : { input: inputOf(request, path, query, body, headersOf(operation, request)) },
  );
}

function queryOf(
  { arrayQueryParameters }: ValidatedOperation,
  parsed: Record<string, string | string[]>,
): Record<string, unknown> {
  // Without a prototype, as Fastify parses it: `?__proto__=` is a field like any other, and unknown.
  const query: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const name of Object.keys(parsed)) {
    const value = parsed[name] as string | string[];
    query[name] = Array.isArray(value) ? [...value] : arrayQueryParameters.has(name) ? [value] : value;
  }
  return query;
}

function inputOf(request: FastifyRequest, path: unknown, query: unknown, body: unknown, headers: unknown): Input<never> {
  return { path, pathText: request.params, query, body, headers } as Input<never>;
}

/** The operation's header parameters, by name. */
function headersOf(operation: ValidatedOperation, request: FastifyRequest): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const { name, field } of operation.headerParameters) {
    // Validated: a repeated field reaches here joined with ", ", which no header pattern allows.
    const value = request.headers[field];
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export function invalidRequest(errors: ErrorObject[] | null | undefined): ErrorAnswer<400> {
  const message = describeValidationErrors(errors ?? []);
  return isLimitOutOfRange(errors ?? []) ? apiError('limit_out_of_range', message) : apiError('invalid_request', message);
}

/** API v2's listOrders gives a page size out of range a code of its own; a `limit` not an integer is not one. */
function isLimitOutOfRange(errors: ErrorObject[]): boolean {
  const error = errors.find(({ keyword }) => keyword !== 'parse');
  return error?.instancePath === '/query/limit' && (error.keyword === 'minimum' || error.keyword === 'maximum');
}

/** A request with nothing to validate has no parameters: each is one shared, empty object. */
const NONE = Object.freeze({});

/**
 * Validation costs more than the rest of a small request. It is skipped only when it cannot fail: the
 * operation takes no path parameters and no body, and the request carries no query and none of the
 * operation's header parameters.
 */
function hasAnythingToValidate(
  { definition, headerParameters }: ValidatedOperation,
  { query, headers }: { query: unknown; headers: Record<string, unknown> },
): boolean {
  if (definition.requestBody) return true;
  // Not Object.keys(): that would be an array for every request.
  for (const _name in query as object) return true;
  // Loops, not some(): its callback would be a new function on every request.
  for (const parameter of (definition.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    if (parameter.in === 'path') return true;
  }
  for (const { field } of headerParameters) if (field in headers) return true;
  return false;
}

export function describeValidationErrors(errors: ErrorObject[]): string {
  // openapi-backend's own pipeline (which the server never runs, operationTable.ts) adds a `parse` error for
  // any non-object JSON body: the schema's own complaint ("must be object") is the useful one.
  const error = errors.find(({ keyword }) => keyword !== 'parse');
  if (!error) return 'The request does not match the contract';
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  if (params.missingProperty === 'requestBody') return 'body: is required';
  const detail = params.additionalProperty
    ? `must not have the property "${params.additionalProperty}"`
    : (error.message ?? 'is invalid');
  return `${fieldOf(error.instancePath)}: ${detail}`;
}

/** `/requestBody/message` → `body.message`, `/path/orderId` → `orderId`, `/query` → `query`. */
function fieldOf(instancePath: string): string {
  const [, part = '', ...rest] = instancePath.split('/');
  if (part === 'requestBody') return ['body', ...rest].join('.');
  return rest.length > 0 ? rest.join('.') : part || 'request';
}
