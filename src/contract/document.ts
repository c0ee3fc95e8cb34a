// openapi.yaml, read once at start: the parsed document for openapi-backend and the texts served to clients.
import { readFileSync } from 'node:fs';
import type { OpenAPIV3 } from 'openapi-types';
import { parse } from 'yaml';

/** The base path of every operation: the path of the contract's server URL. */
export const API_ROOT = '/v1';

export const CONTRACT_PATH = new URL('../../openapi.yaml', import.meta.url);

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
  const document = parse(yamlText) as OpenAPIV3.Document;
  if (typeof document?.openapi !== 'string' || !document.openapi.startsWith('3.0.')) {
    throw new ContractError(`${String(path)} is not an OpenAPI 3.0 document`);
  }
  return { document, yamlText, jsonText: JSON.stringify(document) };
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
