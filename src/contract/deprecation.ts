// Deprecation, Sunset and Link headers, and 410 after the sunset, for any operation the contract marks
// `deprecated: true`. The instants come from `x-deprecated-at` and `x-sunset`; the link from `externalDocs`.
import type { OpenAPIV3 } from 'openapi-types';
import { ContractError, type ContractOperation } from './document.js';

export interface DeprecationPolicy {
  operationId: string;
  deprecatedAt: Date;
  sunsetAt?: Date;
  /** Sent on every response of the operation until (and after) its sunset. */
  headers: Record<string, string>;
}

type DeprecatedOperation = OpenAPIV3.OperationObject & { 'x-deprecated-at'?: unknown; 'x-sunset'?: unknown };

export function deprecationPolicies(operations: ContractOperation[]): Map<string, DeprecationPolicy> {
  const policies = new Map<string, DeprecationPolicy>();
  for (const { operationId, definition } of operations) {
    if (definition.deprecated !== true) continue;
    policies.set(operationId, policyFor(operationId, definition));
  }
  return policies;
}

export function isPastSunset(policy: DeprecationPolicy, now: Date): boolean {
  return policy.sunsetAt !== undefined && now.getTime() > policy.sunsetAt.getTime();
}

function policyFor(operationId: string, definition: DeprecatedOperation): DeprecationPolicy {
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
  const policy: DeprecationPolicy = { operationId, deprecatedAt, headers };
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
