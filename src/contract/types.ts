// Strict operation types derived from generated/: an operation can only answer a status the contract
// documents for it, with that status's body, so an undocumented answer fails `tsc`.
import type { operations } from '../../generated/openapi.js';
import type { StreamedArray } from './streamedArray.js';

export type OperationId = keyof operations;

type Responses<Op extends OperationId> = operations[Op]['responses'];
/** `default` is left out on purpose: it is the server's unexpected-error answer, never a handler's choice. */
type DocumentedStatus<Op extends OperationId> = Extract<Exclude<keyof Responses<Op>, 'default'>, number>;

type ResultFor<Response, Status> = Response extends { content: { 'application/json': infer Body } }
  ? {
      status: Status;
      body: Body extends (infer Item)[] ? readonly Item[] | StreamedArray : Body;
      headers?: Record<string, string>;
    }
  : { status: Status; body?: undefined; headers?: Record<string, string> };

export type OperationAnswer<Op extends OperationId> = {
  [Status in DocumentedStatus<Op>]: ResultFor<Responses<Op>[Status], Status>;
}[DocumentedStatus<Op>];

type Parameters<Op extends OperationId> = operations[Op]['parameters'];
type DeclaredBody<Op extends OperationId> = NonNullable<operations[Op]['requestBody']>;
type RequestBody<Op extends OperationId> = [DeclaredBody<Op>] extends [never]
  ? undefined
  : DeclaredBody<Op> extends { content: { 'application/json': infer Body } }
    ? Body
    : undefined;

export interface Input<Op extends OperationId> {
  path: Parameters<Op>['path'];
  /** The path parameters as sent, for messages: an int64 beyond 2^53 is not exact as a number. */
  pathText: { [Name in keyof Parameters<Op>['path']]: string };
  body: RequestBody<Op>;
  /** The operation's header parameters, by their names in the contract. */
  headers: Parameters<Op>['header'];
}
