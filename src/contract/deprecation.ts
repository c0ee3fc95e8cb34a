// Deprecation, Sunset and Link headers, and 410 after the sunset, for any operation the contract marks
// `deprecated: true`. The instants come from `x-deprecated-at` and `x-sunset`; the link from `externalDocs`.
import type { OpenAPIV3 } from 'openapi-types';
import { ContractError, type ContractOperation } from './document.js';
import { apiError, type ErrorAnswer } from './errorBody.js';

export interface DeprecationPolicy {
  operationId: string;
  /** The operation's method, upper case, and its path template as a pattern over raw paths. */
  method: string;
  pathPattern: RegExp;
  deprecatedAt: Date;
  sunsetAt?: Date;
  /** Sent on every response of the operation until (and after) its sunset. */
  headers: Record<string, string>;
}

type DeprecatedOperation = OpenAPIV3.OperationObject & { 'x-deprecated-at'?: unknown; 'x-sunset'?: unknown };

export function deprecationPolicies(operations: ContractOperation[]): Map<string, DeprecationPolicy> {
  const policies = new Map<string, DeprecationPolicy>();
  for (const operation of operations) {
    if (operation.definition.deprecated !== true) continue;
    policies.set(operation.operationId, policyFor(operation));
  }
  return policies;
}

/**
 * The deprecated operation a request is for, read from its method and raw URL (`root` and the template's
 * path): for the answers given before routing, such as a malformed percent-escape, which are still
 * answers of that operation.
 */
export function deprecatedOperationAt(
  policies: Map<string, DeprecationPolicy>,
  root: string,
): (method: string, url: string) => DeprecationPolicy | undefined {
  return (method, url) => {
    const path = url.split('?', 1)[0] as string;
    if (!path.startsWith(`${root}/`)) return undefined;
    const relative = path.slice(root.length);
    return [...policies.values()].find((policy) => policy.method === method && policy.pathPattern.test(relative));
  };
}

/** The 410 of a deprecated operation strictly after its sunset; nothing before it. */
export function refuseAfterSunset(policy: DeprecationPolicy | undefined, now: Date): ErrorAnswer<410> | undefined {
  if (policy?.sunsetAt === undefined || now.getTime() <= policy.sunsetAt.getTime()) return undefined;
  return apiError('gone', `${policy.operationId} was removed at its sunset, ${policy.sunsetAt.toISOString()}`);
}

function policyFor({ operationId, method, path, definition: operation }: ContractOperation): DeprecationPolicy {
  const definition = operation as DeprecatedOperation;
  const deprecatedAt = instant(operationId, 'x-deprecated-at', definition['x-deprecated-at']);
  if (!deprecatedAt) throw new ContractError(`${operationId} is deprecated but has no x-deprecated-at`);
  const sunsetAt = instant(operationId, 'x-sunset', definition['x-sunset']);
  // RFC 9745: a structured-field date, `@` and Unix seconds.
  const headers: Record<string, string> = { Deprecation: `@${Math.floor(deprecatedAt.getTime() / 1000)}` };
  // RFC 8594: an HTTP-date, which toUTCString() writes as IMF-fixdate.
  if (sunsetAt) headers.Sunset = sunsetAt.toUTCString();
  const docs = definition.externalDocs?.url;
  if (docs) {
    const links = [`<${docs}>; rel="deprecation"; type="text/html"`];
    if (sunsetAt) links.push(`<${docs}>; rel="sunset"; type="text/html"`);
    headers.Link = links.join(', ');
  }
  const template = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  const pathPattern = new RegExp(`^${template}$`);
  const policy: DeprecationPolicy = { operationId, method: method.toUpperCase(), pathPattern, deprecatedAt, headers };
  if (sunsetAt) policy.sunsetAt = sunsetAt;
  return policy;
}

function instant(operationId: string, extension: string, value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  const date = typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
  if (typeof value !== 'string' || Number.isNaN(date.getTime()) || !/(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    throw new ContractError(
      `${operationId}: ${extension} must be a date-time with a time zone, got ${JSON.stringify(value)}`,
    );
  }
  return date;
}
