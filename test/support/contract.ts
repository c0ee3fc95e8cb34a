// Checks every response a test receives against its version's contract (openapi.yaml under /v1,
// openapi.v2.yaml under /v2): the status is documented for the operation,
// the content type and body match, required headers are present and match, and an Error's status is the
// HTTP status. An error outside any operation (unknown path, wrong method) must be the Error body too.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { documents, escapePointer, type Json, resolve, type Version } from './document.js';

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
for (const [version, document] of Object.entries(documents)) ajv.addSchema(document, version);

const validators = new Map<string, ValidateFunction>();
function validatorAt(version: Version, pointer: string): ValidateFunction {
  const id = `${version}#${pointer}`;
  let validate = validators.get(id);
  if (!validate) {
    validate = ajv.compile({ $ref: id });
    validators.set(id, validate);
  }
  return validate;
}

interface OperationMatch {
  version: Version;
  pointer: string;
  operation: Json;
}

/** The version whose root the path is under, if any. */
function versionOf(path: string): Version | undefined {
  return (Object.keys(documents) as Version[]).find((version) => path.startsWith(`/${version}/`));
}

function findOperation(method: string, path: string): OperationMatch | undefined {
  const version = versionOf(path);
  if (version === undefined) return undefined;
  const relative = path.slice(version.length + 1);
  for (const [template, item] of Object.entries(documents[version].paths as Json)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const operation = (item as Json)[method.toLowerCase()] as Json | undefined;
    if (operation && pattern.test(relative)) {
      return { version, pointer: `/paths/${escapePointer(template)}/${method.toLowerCase()}`, operation };
    }
  }
  return undefined;
}

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  bodyText: string;
}

/**
 * The fault suite (test/chaos) holds locks and fills disks on purpose; there, and only there, the documented
 * temporary 503s are the right answer. Anywhere else a 5xx is a bug.
 */
function isInjectedOutage(response: ObservedResponse): boolean {
  if (process.env.VITEST_SUITE !== 'faults' || response.status !== 503) return false;
  if (!/^[0-9]+$/.test(response.headers.get('retry-after') ?? '')) return false;
  try {
    const { code } = JSON.parse(response.bodyText) as { code?: string };
    return code === 'service_unavailable' || code === 'storage_unavailable';
  } catch {
    return false;
  }
}

/** Every problem with a response, as readable lines; empty when it honours the contract. */
export function contractViolations(response: ObservedResponse): string[] {
  const problems: string[] = [];
  const match = findOperation(response.method, response.path);
  const contentType = response.headers.get('content-type') ?? '';
  if (!response.headers.get('x-request-id')) problems.push('no X-Request-Id header');
  if (response.status >= 500 && !isInjectedOutage(response)) {
    problems.push(`server error ${response.status}: ${response.bodyText}`);
  }

  // A HEAD answer has the headers of its GET and never a body.
  if (response.method === 'HEAD') {
    if (response.bodyText !== '') problems.push('HEAD answered with a body');
    return problems;
  }
  if (!match) {
    // Not an operation of the contract (probes, the contract itself, unknown paths, wrong methods):
    // any error there is still the Error body.
    if (response.status >= 400) problems.push(...errorBodyProblems(response, contentType, versionOf(response.path) ?? 'v1'));
    return problems;
  }
  const { version } = match;
  const within = documents[version];
  const responses = match.operation.responses as Json;
  const key = String(response.status) in responses ? String(response.status) : 'default';
  if (!(key in responses)) {
    problems.push(`status ${response.status} is not documented for ${String(match.operation.operationId)}`);
    return problems;
  }
  const { node: documented, pointer } = resolve(responses[key], `${match.pointer}/responses/${key}`, within);

  for (const [name, header] of Object.entries((documented.headers ?? {}) as Json)) {
    const { node: headerSpec, pointer: headerPointer } = resolve(
      header,
      `${pointer}/headers/${escapePointer(name)}`,
      within,
    );
    const value = response.headers.get(name);
    if (value === null) {
      if (headerSpec.required) problems.push(`required header ${name} is missing`);
      continue;
    }
    const validate = validatorAt(version, `${headerPointer}/schema`);
    if (!validate(value))
      problems.push(`header ${name}: ${ajv.errorsText(validate.errors)} (got ${value as string})`);
  }

  const content = documented.content as Json | undefined;
  if (!content) {
    if (response.bodyText !== '')
      problems.push(`status ${response.status} documents no body, got ${response.bodyText}`);
    return problems;
  }
  const mediaType = contentType.split(';')[0]?.trim() ?? '';
  if (!(mediaType in content)) {
    problems.push(`content type "${contentType}" is not documented for ${response.status}`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.bodyText);
  } catch {
    problems.push(`body is not JSON: ${response.bodyText.slice(0, 200)}`);
    return problems;
  }
  const validate = validatorAt(version, `${pointer}/content/${escapePointer(mediaType)}/schema`);
  if (!validate(body))
    problems.push(`body: ${ajv.errorsText(validate.errors)}: ${response.bodyText.slice(0, 200)}`);
  if (isErrorBody(body) && body.status !== response.status) {
    problems.push(`Error.status ${body.status} differs from the HTTP status ${response.status}`);
  }
  return problems;
}

function errorBodyProblems(response: ObservedResponse, contentType: string, version: Version): string[] {
  if (!contentType.startsWith('application/json'))
    return [`content type "${contentType}" is not application/json`];
  let body: unknown;
  try {
    body = JSON.parse(response.bodyText);
  } catch {
    return [`body is not JSON: ${response.bodyText.slice(0, 200)}`];
  }
  const validate = validatorAt(version, '/components/schemas/Error');
  if (!validate(body)) return [`not an Error body: ${ajv.errorsText(validate.errors)}`];
  if ((body as { status: number }).status !== response.status)
    return ['Error.status differs from the HTTP status'];
  return [];
}

function isErrorBody(body: unknown): body is { code: string; message: string; status: number } {
  return typeof body === 'object' && body !== null && 'code' in body && 'status' in body && 'message' in body;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

export function assertHonoursContract(response: ObservedResponse): void {
  const problems = contractViolations(response);
  if (problems.length > 0) {
    throw new ContractViolation(
      `${response.method} ${response.path} → ${response.status}:\n  ${problems.join('\n  ')}`,
    );
  }
}
