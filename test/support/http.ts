// The only way tests talk HTTP: real fetch to a real listening server, and every response checked against
// openapi.yaml before the test sees it.
import createClient from 'openapi-fetch';
import type { paths } from '../../generated/openapi.js';
import type { paths as pathsV2 } from '../../generated/openapi.v2.js';
import { assertHonoursContract, ContractViolation } from './contract.js';
import { prismProblems, throughPrism } from './viaPrism.js';

export async function validatingFetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const proxied = await throughPrism(request, init);
  const response = await fetch(proxied ?? request);
  const bodyText = await response.text();
  if (proxied) {
    const problems = prismProblems(response.headers.get('sl-violations'), response.status);
    if (problems.length > 0) {
      throw new ContractViolation(
        `${request.method} ${request.url} → ${response.status}:\n  ${problems.join('\n  ')}`,
      );
    }
  }
  assertHonoursContract({
    method: request.method,
    path: new URL(request.url).pathname,
    status: response.status,
    headers: response.headers,
    bodyText,
  });
  return new Response(response.status === 204 || response.status === 304 ? null : bodyText, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The typed client users would build from generated/, with a key. */
export function apiClient(baseUrl: string, key?: string) {
  return createClient<paths>({
    baseUrl: `${baseUrl}/v1`,
    fetch: validatingFetch,
    ...(key !== undefined && { headers: { Authorization: `Bearer ${key}` } }),
  });
}

/** The same for API v2, from generated/openapi.v2.d.ts. */
export function apiClientV2(baseUrl: string, key?: string) {
  return createClient<pathsV2>({
    baseUrl: `${baseUrl}/v2`,
    fetch: validatingFetch,
    ...(key !== undefined && { headers: { Authorization: `Bearer ${key}` } }),
  });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

/** For requests the typed client cannot make: odd content types, bad bodies, wrong methods. */
export async function rawRequest(url: string, init: RequestInit = {}): Promise<RawResponse> {
  const response = await validatingFetch(url, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** The key with its last character changed: the key's shape, a checksum that does not match, and never the key
 * itself (as an `x` put in place of the last character is, for one key in 62). */
export function wrongKey(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
}
