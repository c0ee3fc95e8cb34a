// The contract's operations as the pipeline uses them: each with its definition ($refs resolved), its
// compiled request validator, its deprecation policy and its Fastify route. openapi-backend provides the
// resolved operations and the validators; its own request pipeline is not used (see pipeline.ts).
import { type Request as ApiRequest, OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3 } from 'openapi-types';
import { type DeprecationPolicy, deprecationPolicies } from '../contract/deprecation.js';
import { API_ROOT, type Contract, operationsOf } from '../contract/document.js';
import { configureAjv } from '../contract/formats.js';
import type { OperationId } from '../contract/types.js';
import type { Handler } from '../operations/handler.js';
import { apiError } from '../contract/errorBody.js';
import { supportsConditionalGet } from './conditional.js';
import { invalidRequest, type Validation } from './validation.js';

export interface Operation {
  operationId: OperationId;
  method: string;
  /** The operation's path as a Fastify route, under the API root. */
  url: string;
  definition: OpenAPIV3.OperationObject;
  deprecation: DeprecationPolicy | undefined;
  /** The names of its header parameters, as the contract spells them. */
  headerParameters: string[];
  /** Whether it answers If-None-Match (conditional.ts). */
  conditional: boolean;
  validate(request: ApiRequest): Validation;
  handler: Handler<OperationId>;
}

export async function operationTable(
  contract: Contract,
  handlers: { [Op in OperationId]: Handler<Op> },
): Promise<Operation[]> {
  const api = new OpenAPIBackend({
    definition: contract.document,
    apiRoot: API_ROOT,
    strict: true,
    // Quick mode skips re-validating openapi.yaml at every start (Spectral and Redocly check it in CI) and
    // compiles validators on demand: the request validators in the background right after start (below),
    // the response validators, which the server never runs, not at all.
    quick: true,
    coerceTypes: true,
    customizeAjv: configureAjv,
    // The server never calls api.handleRequest and registers no operation handler in it. These two refuse,
    // should anything ever route a request through openapi-backend, instead of letting it through.
    handlers: {
      unauthorizedHandler: () => apiError('unauthorized', 'A valid API key is required'),
      validationFail: (context) => invalidRequest(context.validation.errors),
    },
  });
  await api.init();
  const policies = deprecationPolicies(operationsOf(contract.document));
  const operations = api.router.getOperations().map((resolved): Operation => {
    const operationId = resolved.operationId as OperationId;
    const definition = resolved as OpenAPIV3.OperationObject;
    const parameters = (definition.parameters ?? []) as OpenAPIV3.ParameterObject[];
    return {
      operationId,
      method: resolved.method.toUpperCase(),
      url: `${API_ROOT}${resolved.path.replace(/\{([^}]+)\}/g, ':$1')}`,
      definition,
      deprecation: policies.get(operationId),
      headerParameters: parameters.filter(({ in: where }) => where === 'header').map(({ name }) => name),
      conditional: supportsConditionalGet(definition),
      // The operation itself: given its id, openapi-backend would rebuild its operation list.
      validate: (request) => api.validator.validateRequest(request, resolved),
      handler: handlers[operationId] as Handler<OperationId>,
    };
  });
  compileInTheBackground(api, operations.map(({ operationId }) => operationId));
  return operations;
}

/**
 * One operation's validators per turn of the event loop, right after start, keeps their compilation off
 * the way of the first requests; an operation asked for before its turn is compiled on demand.
 */
function compileInTheBackground(api: OpenAPIBackend, operationIds: string[]): void {
  const [next, ...rest] = operationIds;
  if (next === undefined) return;
  setImmediate(() => {
    api.validator.getRequestValidatorsForOperation(next);
    compileInTheBackground(api, rest);
  });
}
