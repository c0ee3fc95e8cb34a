// A contract's operations as the pipeline uses them: each with its definition, its deprecation policy,
// its Fastify route and its request validator. openapi-backend compiles the validators (Ajv); its own
// request pipeline is not used (see pipeline.ts). It is loaded only when first needed or soon after start
// (see `load`): the checks before validation read the contract's own definitions, so a first request with
// nothing to validate, such as a plain listOrders, waits for neither the import nor the compilation.
import type { ErrorObject } from 'ajv';
import type { OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { type DeprecationPolicy, deprecationPolicies } from '../contract/deprecation.js';
import type { Awaitable } from '../awaitable.js';
import type { Answer } from '../contract/answer.js';
import { type ApiVersion, type Contract, operationsOf } from '../contract/document.js';
import { apiError } from '../contract/errorBody.js';
import { configureAjv } from '../contract/formats.js';
import type { AnyOperationId, Input } from '../contract/types.js';
import { type Dependencies, type Handlers, isKeyCheckedByStore } from '../operations/handler.js';
import { isScope, type Scope } from '../store/store.js';
import { supportsConditionalGet } from './conditional.js';
import { type HeaderParameter, invalidRequest, type Validation, type ValidationInput } from './validation.js';

export interface Operation {
  version: ApiVersion;
  operationId: AnyOperationId;
  method: string;
  /** The operation's path as a Fastify route, under its version's API root. */
  url: string;
  /** As in the contract, with its parameters' `$ref`s followed. */
  definition: OpenAPIV3.OperationObject;
  deprecation: DeprecationPolicy | undefined;
  /** Its header parameters: each name as the contract spells it, and the field as Node keys it (lower case). */
  headerParameters: HeaderParameter[];
  /** Its query parameters that take an array (validation.ts). */
  arrayQueryParameters: ReadonlySet<string>;
  /** Whether it answers If-None-Match (conditional.ts). */
  conditional: boolean;
  /** Whether its store call checks the caller's key itself (operations/handler.ts, checksKeyInStore). */
  keyCheckedByStore: boolean;
  /** The scope a key needs for it, the contract's `x-required-scope`; none where any valid key may call it. */
  scope: Scope | undefined;
  validate(input: ValidationInput): Awaitable<Validation>;
  /** Its version's handler, given the input its contract checked. */
  handler(input: Input<never>, dependencies: Dependencies): Awaitable<Answer>;
}

export interface OperationTable {
  operations: Operation[];
  /** Loads openapi-backend and compiles the validators, unless that is done or under way. */
  load(): Promise<unknown>;
}

export function operationTable<V extends ApiVersion>(
  version: V,
  contract: Contract,
  handlers: Handlers<V>,
): OperationTable {
  let loading: Promise<Validators> | undefined;
  let validators: Validators | undefined;
  const loaded = () => (loading ??= loadValidators(contract).then((ready) => (validators = ready)));
  const declared = operationsOf(contract.document);
  const policies = deprecationPolicies(declared);
  const operations = declared.map(({ operationId: id, method, path, definition: asDeclared }): Operation => {
    const operationId = id as AnyOperationId;
    const definition = withParametersResolved(contract.document, asDeclared);
    const parameters = (definition.parameters ?? []) as OpenAPIV3.ParameterObject[];
    refuseUnsupportedParameters(operationId, parameters);
    return {
      version,
      operationId,
      method: method.toUpperCase(),
      url: `${contract.root}${path.replace(/\{([^}]+)\}/g, ':$1')}`,
      definition,
      deprecation: policies.get(operationId),
      headerParameters: parameters
        .filter(({ in: where }) => where === 'header')
        .map(({ name }) => ({ name, field: name.toLowerCase() })),
      arrayQueryParameters: new Set(
        parameters
          .filter(({ in: where, schema }) => where === 'query' && (schema as OpenAPIV3.SchemaObject).type === 'array')
          .map(({ name }) => name),
      ),
      conditional: supportsConditionalGet(definition),
      keyCheckedByStore: isKeyCheckedByStore(handlers[operationId as keyof Handlers<V>]),
      scope: requiredScope(operationId, definition),
      // At once when the validators are loaded, as they are soon after start.
      validate: (input) =>
        validators ? validators.validate(operationId, input) : loaded().then((ready) => ready.validate(operationId, input)),
      handler: handlers[operationId as keyof Handlers<V>] as unknown as Operation['handler'],
    };
  });
  return { operations, load: loaded };
}

interface Validators {
  validate(operationId: string, input: ValidationInput): Validation;
}

/** The operation's `x-required-scope`: a server refuses to start on a contract that names another. */
function requiredScope(operationId: string, definition: OpenAPIV3.OperationObject): Scope | undefined {
  const scope = (definition as { 'x-required-scope'?: unknown })['x-required-scope'];
  if (scope === undefined) return undefined;
  if (typeof scope !== 'string' || !isScope(scope)) throw new Error(`${operationId}: x-required-scope ${JSON.stringify(scope)} is no scope`);
  return scope;
}

/**
 * validation.ts builds the validators' input for the parameters the contracts have: in the path, in the
 * query as `form` with `explode` (an array's values as repeated fields), and in headers. Any other kind
 * would be checked wrongly, so the server refuses to start on a contract that has one.
 */
function refuseUnsupportedParameters(operationId: string, parameters: OpenAPIV3.ParameterObject[]): void {
  for (const { name, in: where, content, style, explode } of parameters) {
    const supported =
      content === undefined &&
      ['path', 'header', 'query'].includes(where) &&
      (where !== 'query' || ((style ?? 'form') === 'form' && explode !== false));
    if (!supported) throw new Error(`${operationId}: the parameter ${name} (in ${where}) is of a kind validation.ts does not build`);
  }
}

async function loadValidators(contract: Contract): Promise<Validators> {
  const { OpenAPIBackend } = await import('openapi-backend');
  const api = new OpenAPIBackend({
    definition: contract.document,
    apiRoot: contract.root,
    strict: true,
    // Quick mode skips re-validating openapi.yaml at every start (Spectral and Redocly check it in CI) and
    // compiles validators on demand: the request validators in the background (below), the response
    // validators, which the server never runs, not at all.
    quick: true,
    coerceTypes: true,
    // openapi-backend makes an Ajv per operation and kind of input, and each would first compile the JSON
    // Schema meta-schema to check the contract's schemas against it: most of the compile time, for what
    // Spectral and Redocly check in CI.
    ajvOpts: { validateSchema: false },
    customizeAjv: configureAjv,
    // The server never calls api.handleRequest and registers no operation handler in it. These two refuse,
    // should anything ever route a request through openapi-backend, instead of letting it through.
    handlers: {
      unauthorizedHandler: () => apiError('unauthorized', 'A valid API key is required'),
      validationFail: (context) => invalidRequest(context.validation.errors),
    },
  });
  await api.init();
  compileInTheBackground(api, api.router.getOperations().map(({ operationId }) => operationId as string));
  return {
    // As openapi-backend's validateRequest runs them, on input built from what Fastify parsed.
    validate: (operationId, input) => {
      const errors: ErrorObject[] = [];
      for (const validate of api.validator.getRequestValidatorsForOperation(operationId) ?? []) {
        validate(input);
        if (validate.errors) errors.push(...validate.errors);
      }
      return { errors: errors.length > 0 ? errors : null };
    },
  };
}

/**
 * One operation's validators per turn of the event loop keeps their compilation off the way of the
 * requests meanwhile; an operation asked for before its turn is compiled on demand.
 */
function compileInTheBackground(api: OpenAPIBackend, operationIds: string[]): void {
  const [next, ...rest] = operationIds;
  if (next === undefined) return;
  setImmediate(() => {
    api.validator.getRequestValidatorsForOperation(next);
    compileInTheBackground(api, rest);
  });
}

/** The operation with its parameters' `$ref`s (to components of the same document) followed. */
function withParametersResolved(
  document: OpenAPIV3.Document,
  definition: OpenAPIV3.OperationObject,
): OpenAPIV3.OperationObject {
  const parameters = (definition.parameters ?? []).map((parameter) => {
    const resolved = followRef<OpenAPIV3.ParameterObject>(document, parameter);
    return resolved.schema ? { ...resolved, schema: followRef(document, resolved.schema) } : resolved;
  });
  return { ...definition, parameters };
}

function followRef<T>(document: OpenAPIV3.Document, node: T | OpenAPIV3.ReferenceObject): T {
  let current: unknown = node;
  while (current && typeof current === 'object' && '$ref' in current) {
    const pointer = (current as OpenAPIV3.ReferenceObject).$ref.replace(/^#\//, '').split('/');
    current = pointer.reduce<unknown>(
      (at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  }
  return current as T;
}
