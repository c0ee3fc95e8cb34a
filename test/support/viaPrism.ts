// In the run through Prism (test/support/prismProxy.ts), sends a test's request through the validating
// proxy of its version (/v1 or /v2) and judges what Prism reports. A response violation always fails. A request violation fails
// unless the server refused that request too (4xx): then server and contract agree it was invalid, which
// is what the test sent it for. Requests Prism cannot carry unchanged go straight to the server; each
// reason is below, and each count is written to test-artifacts/prism-requests.jsonl.
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';
import { firstDuplicateKey } from '../../src/http/duplicateKeys.js';
import { type ApiVersion, UPSTREAM_PORT_HEADER } from './prismProxy.js';

const prismUrls = inject('prismUrls');

/** The version whose Prism carries requests to this path, if any. */
const versionOf = (pathname: string) =>
  (Object.keys(prismUrls ?? {}) as ApiVersion[]).find((version) => pathname.startsWith(`/${version}/`));
const utf8 = new TextDecoder('utf-8', { fatal: true });
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}\\s*(;\\s*${TOKEN}=(${TOKEN}|"[^"]*")\\s*)*$`);

interface Violation {
  location: string[];
  severity: string;
  message: string;
}

/** Why Prism cannot carry this request unchanged, or undefined when it can. */
function bypassReason(
  request: Request,
  init: RequestInit | undefined,
  body: Uint8Array | undefined,
): string | undefined {
  const { pathname } = new URL(request.url);
  if (versionOf(pathname) === undefined || /^\/v[0-9]+\/openapi\.(yaml|json)$/.test(pathname))
    return 'not an operation path';
  if (init?.body instanceof ReadableStream) return 'a streamed body';
  // A malformed percent-escape in the path makes Prism's process exit (URIError).
  try {
    decodeURIComponent(pathname);
  } catch {
    return 'a malformed percent-escape';
  }
  // Prism fails to read the bodyless answer to HEAD, and refuses bodies on other methods (501).
  if (request.method === 'HEAD') return 'HEAD';
  if (body !== undefined && request.method !== 'POST') return 'a body on a method without one';
  // The server answers 413 without reading such a body and closes the connection; a proxy still sending
  // it can meet the reset before the answer, a race no server can prevent.
  if (body !== undefined && body.length > 1024 * 1024) return 'a body over 1 MiB';
  // Prism parses and re-serialises JSON bodies: it answers malformed JSON itself, replaces bad UTF-8, and
  // fails (500) on JSON that is not an object or an array, or on a Content-Type it cannot parse.
  if (body !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(utf8.decode(body));
    } catch {
      return 'a body that is not UTF-8 JSON';
    }
    if (typeof parsed !== 'object' || parsed === null) return 'a JSON body that is not an object or array';
    // Prism re-serialises the parsed body, which keeps only the last of two members with one name.
    if (firstDuplicateKey(utf8.decode(body)) !== undefined) return 'a JSON body with a member name twice';
    const contentType = request.headers.get('content-type');
    if (contentType !== null && !MEDIA_TYPE.test(contentType)) return 'a malformed Content-Type';
  }
  let headerBytes = 0;
  request.headers.forEach((value, name) => (headerBytes += name.length + value.length + 4));
  // Prism's own HTTP server answers 431 to large headers, before the server sees them.
  if (headerBytes > 8 * 1024) return 'headers over 8 KiB';
  // Prism reads format int64 as at most 2^53 - 1; the contract's int64 goes to 2^63 - 1 (v2's petId).
  const { searchParams } = new URL(request.url);
  if ([...searchParams.values()].some((value) => /^[0-9]{16,}$/.test(value) && BigInt(value) > 2n ** 53n - 1n))
    return 'an integer in the query beyond 2^53 - 1';
  // RFC 9110 makes the scheme name case-insensitive; Prism only accepts "Bearer".
  const authorization = request.headers.get('authorization');
  if (authorization !== null && !authorization.startsWith('Bearer '))
    return 'an Authorization scheme not spelled "Bearer"';
  return undefined;
}

/** prismProxy.ts made the file empty at the start of the run. */
function record(entry: Record<string, unknown>): void {
  appendFileSync('test-artifacts/prism-requests.jsonl', `${JSON.stringify(entry)}\n`);
}

/** The request to send through Prism instead, or undefined to send the original straight to the server. */
export async function throughPrism(request: Request, init?: RequestInit): Promise<Request | undefined> {
  if (prismUrls === undefined) return undefined;
  const body = request.body === null ? undefined : new Uint8Array(await request.clone().arrayBuffer());
  const reason = bypassReason(request, init, body);
  if (reason !== undefined) {
    record({ bypassed: reason });
    return undefined;
  }
  const url = new URL(request.url);
  const version = versionOf(url.pathname)!;
  const headers = new Headers(request.headers);
  headers.set(UPSTREAM_PORT_HEADER, url.port);
  return new Request(`${prismUrls[version]}${url.pathname.slice(`/${version}`.length)}${url.search}`, {
    method: request.method,
    headers,
    ...(body !== undefined && { body }),
  });
}

/** What Prism reported that the server's own answer does not explain. */
export function prismProblems(reported: string | null, status: number): string[] {
  record({
    status,
    violations:
      reported === null ? 0 : reported.startsWith('[') ? (JSON.parse(reported) as unknown[]).length : 'many',
  });
  if (reported === null) return [];
  if (!reported.startsWith('[')) return [`Prism: ${reported.slice(0, 300)}`];
  const problems: string[] = [];
  for (const violation of JSON.parse(reported) as Violation[]) {
    const what = `Prism: ${violation.location.join('.')}: ${violation.message}`;
    if (violation.location[0] === 'response') problems.push(what);
    else if (violation.message === 'Selected route not found') {
      if (status !== 404 && status !== 405) problems.push(`${what}, yet the server answered ${status}`);
    } else if (status < 400 || status >= 500) {
      problems.push(`${what}, yet the server accepted it with ${status}`);
    }
  }
  return problems;
}
