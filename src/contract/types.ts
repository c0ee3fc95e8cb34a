// Strict operation types derived from generated/, for each version of the API: an operation can only
// answer a status its contract documents for it, with that status's body, so an undocumented answer fails
// `tsc`.
import type { operations as OperationsV1 } from '../../generated/openapi.js';
import type { operations as OperationsV2 } from '../../generated/openapi.v2.js';
import type { ApiVersion } from './document.js';
import type { StreamedArray } from './streamedArray.js';

interface OperationsOf extends Record<ApiVersion, object> {
  v1: OperationsV1;
  v2: OperationsV2;
}

export type OperationId<V extends ApiVersion = 'v1'> = keyof OperationsOf[V] & string;
/** An operationId of any version. */
export type AnyOperationId = { [V in ApiVersion]: OperationId<V> }[ApiVersion];

type OperationOf<V extends ApiVersion, Op extends OperationId<V>> = OperationsOf[V][Op] & {
  responses: object;
  parameters: { query?: unknown; header?: unknown; path?: unknown };
  requestBody?: unknown;
};

type Responses<V extends ApiVersion, Op extends OperationId<V>> = OperationOf<V, Op>['responses'];
/** `default` is left out on purpose: it is the server's unexpected-error answer, never a handler's choice. */
type DocumentedStatus<V extends ApiVersion, Op extends OperationId<V>> = Extract<
  Exclude<keyof Responses<V, Op>, 'default'>,
  number
>;

type ResultFor<Response, Status> = Response extends { content: { 'application/json': infer Body } }
  ? {
      status: Status;
      body: Body extends (infer Item)[] ? readonly Item[] | StreamedArray : Body;
      headers?: Record<string, string>;
    }
  : { status: Status; body?: undefined; headers?: Record<string, string> };

export type OperationAnswer<Op extends OperationId<V>, V extends ApiVersion = 'v1'> = {
  [Status in DocumentedStatus<V, Op>]: ResultFor<Responses<V, Op>[Status], Status>;
}[DocumentedStatus<V, Op>];

type Parameters<V extends ApiVersion, Op extends OperationId<V>> = OperationOf<V, Op>['parameters'];
type DeclaredBody<V extends ApiVersion, Op extends OperationId<V>> = NonNullable<OperationOf<V, Op>['requestBody']>;
type RequestBody<V extends ApiVersion, Op extends OperationId<V>> = [DeclaredBody<V, Op>] extends [never]
  ? undefined
  : DeclaredBody<V, Op> extends { content: { 'application/json': infer Body } }
    ? Body
    : undefined;

export interface Input<Op extends OperationId<V>, V extends ApiVersion = 'v1'> {
  path: Parameters<V, Op>['path'];
  /** The path parameters as sent, for messages: an int64 beyond 2^53 is not exact as a number. */
  pathText: { [Name in keyof Parameters<V, Op>['path']]: string };
  /** The query parameters, checked against the contract and coerced to their schemas' types. */
  query: Parameters<V, Op>['query'];
  body: RequestBody<V, Op>;
  /** The operation's header parameters, by their names in the contract. */
  headers: Parameters<V, Op>['header'];
}
