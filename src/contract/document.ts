// openapi.yaml, read once at start: the parsed document for openapi-backend and the texts served to clients.
import { hash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OpenAPIV3 } from 'openapi-types';
import type * as Yaml from 'yaml';

/** The base path of every operation: the path of the contract's server URL. */
export const API_ROOT = '/v1';

export const CONTRACT_PATH = new URL('../../openapi.yaml', import.meta.url);
/** Written by the build (scripts/build-contract.mjs): the document already parsed, and which YAML it is. */
const PARSED_PATH = new URL('../openapi.json', import.meta.url);
const PARSED_FROM_PATH = new URL('../openapi.yaml.sha256', import.meta.url);

export interface Contract {
  document: OpenAPIV3.Document;
  yamlText: string;
  jsonText: string;
}

export class ContractError extends Error {
  override name = 'ContractError';
}

export function loadContract(path: URL | string = CONTRACT_PATH): Contract {
  const yamlText = readFileSync(path, 'utf8');
  const jsonText = path === CONTRACT_PATH ? parsedByTheBuild(yamlText) : undefined;
  const document = (jsonText === undefined ? parseYaml(yamlText) : JSON.parse(jsonText)) as OpenAPIV3.Document;
  if (typeof document?.openapi !== 'string' || !document.openapi.startsWith('3.0.')) {
    throw new ContractError(`${String(path)} is not an OpenAPI 3.0 document`);
  }
  return { document, yamlText, jsonText: jsonText ?? JSON.stringify(document) };
}

/** The build's JSON of this very YAML text; none when running from source or when the YAML changed since. */
function parsedByTheBuild(yamlText: string): string | undefined {
  if (!existsSync(PARSED_PATH) || !existsSync(PARSED_FROM_PATH)) return undefined;
  if (readFileSync(PARSED_FROM_PATH, 'utf8') !== hash('sha256', yamlText)) return undefined;
  return readFileSync(PARSED_PATH, 'utf8');
}

/** The YAML parser is loaded only when it is needed: it is a large part of a cold start. */
function parseYaml(yamlText: string): unknown {
  return (createRequire(import.meta.url)('yaml') as typeof Yaml).parse(yamlText);
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ContractOperation {
  operationId: string;
  method: HttpMethod;
  path: string;
  definition: OpenAPIV3.OperationObject;
}

/** Every operation of the document, in document order. */
export function operationsOf(document: OpenAPIV3.Document): ContractOperation[] {
  const operations: ContractOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const definition = item?.[method];
      if (!definition) continue;
      if (!definition.operationId)
        throw new ContractError(`${method.toUpperCase()} ${path} has no operationId`);
      operations.push({ operationId: definition.operationId, method, path, definition });
    }
  }
  return operations;
}
