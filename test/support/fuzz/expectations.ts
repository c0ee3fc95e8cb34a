// What the contract promises for a generated request, checked on the response: the same checks as
// Schemathesis (no 5xx, documented status, content type, body and headers, Error.status = HTTP status)
// plus the one the request was generated for.
import { contractViolations, type ObservedResponse } from '../contract.js';
import type { OperationSpec } from './operations.js';
import { pageProblems } from '../orderPages.js';
import type { FuzzCase } from './requests.js';

/** Domain refusals a valid request can still meet: the thing does not exist, or is in the wrong state. */
/**
 * Answers that depend on state the generator does not model: what exists, and which Idempotency-Key was
 * already used with which body (generated keys repeat).
 */
const DOMAIN_REFUSALS = new Set([
  'order_not_found',
  'pet_not_found',
  'message_not_found',
  'webhook_endpoint_not_found',
  'order_already_shipped',
  'too_many_webhook_endpoints',
  // A URL of the schema's form may still be no URL, or one of an address that is not public.
  'invalid_webhook_url',
  'idempotency_key_reused',
  'idempotency_key_in_use',
]);

function errorBody(response: ObservedResponse): { code?: string; message?: string } {
  try {
    return JSON.parse(response.bodyText) as { code?: string; message?: string };
  } catch {
    return {};
  }
}

/** The last id in the request's path, as sent: a segment that is not one of the path's own words. */
const lastPathId = (path: string) =>
  decodeURIComponent(
    path
      .split('?')[0]!
      .split('/')
      .filter((segment) => /^(we_|msg_|\d)/.test(segment))
      .pop() ?? '',
  );

/** replayWebhookEvents' range must not end before it starts, which the schema cannot say. */
const isBackwardsRange = (operationId: string, code?: string, message?: string) =>
  operationId === 'replayWebhookEvents' && code === 'invalid_request' && message === 'until: must not be before since';

export function expectationProblems(
  fuzzCase: FuzzCase,
  response: ObservedResponse,
  { version, operationId, pathMethods }: OperationSpec,
): string[] {
  const problems = contractViolations(response);
  const { status } = response;
  const { code, message } = errorBody(response);
  const expect = fuzzCase.expect;
  switch (expect.kind) {
    case 'accepted':
      if (code?.endsWith('_not_found') && code !== 'not_found') {
        const id = lastPathId(fuzzCase.request.path);
        if (!message?.endsWith(` ${id}`)) problems.push(`the 404 does not name the id ${id}: ${message}`);
      }
      if (status >= 400 && !DOMAIN_REFUSALS.has(code ?? '') && !isBackwardsRange(operationId, code, message))
        problems.push(`a valid request was refused: ${status} ${code}`);
      if (version === 'v2' && operationId === 'listOrders' && status === 200)
        problems.push(...pageProblems(fuzzCase.request.path, response));
      break;
    case 'refused':
      if (status !== expect.status || !expect.codes.includes(code ?? ''))
        problems.push(`expected ${expect.status} ${expect.codes.join('|')}, got ${status} ${code}`);
      break;
    case 'unauthorized':
      if (status !== 401) problems.push(`a bad credential got ${status} ${code}, not 401`);
      else if (!response.headers.get('www-authenticate')?.startsWith('Bearer'))
        problems.push('401 without WWW-Authenticate: Bearer');
      break;
    case 'methodNotAllowed': {
      if (status !== 405) problems.push(`a method the path does not have got ${status}, not 405`);
      const allow = (response.headers.get('allow') ?? '')
        .split(',')
        .map((method) => method.trim())
        .filter(Boolean);
      if ([...allow].sort().join() !== [...pathMethods].sort().join())
        problems.push(`Allow is "${allow.join(', ')}", the path has ${pathMethods.join(', ')}`);
      break;
    }
  }
  return problems;
}
