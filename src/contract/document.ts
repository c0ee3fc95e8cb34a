// The contracts, read once at start: openapi.yaml (API v1) and openapi.v2.yaml (API v2), each the parsed
// document for openapi-backend and the texts served to clients, under the API root its servers name, with
// the texts of its OpenAPI 3.1 rendition (generated/, by `npm run generate`), served beside it.
import { hash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { OpenAPIV3 } from 'openapi-types';
import type * as Yaml from 'yaml';

/** The major versions served side by side, each from a contract of its own. */
export const API_VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** Each version's contract file, at the repository's root. */
export const CONTRACT_FILES: Record<ApiVersion, string> = { v1: 'openapi.yaml', v2: 'openapi.v2.yaml' };
export const CONTRACT_PATH = contractPath('v1');
/** Each version's contract as OpenAPI 3.1, made from its contract file by `npm run generate`. */
export const RENDITION_FILES: Record<ApiVersion, string> = {
  v1: 'generated/openapi.3.1.yaml',
  v2: 'generated/openapi.v2.3.1.yaml',
};

export function contractPath(version: ApiVersion): URL {
  return new URL(`../../${CONTRACT_FILES[version]}`, import.meta.url);
}

export interface Contract {
  /** The base path of every operation: the path of the contract's first server URL, such as `/v1`. */
  root: string;
  document: OpenAPIV3.Document;
  yamlText: string;
  jsonText: string;
}

/** A contract's OpenAPI 3.1 rendition, as the file holds it and as JSON. */
export interface Rendition {
  yamlText: string;
  jsonText: string;
}

/** A version's contract as the server serves it: also as its OpenAPI 3.1 rendition. */
export interface ServedContract extends Contract {
  rendition: Rendition;
}

/** Both versions' contracts, newest last. */
export type Contracts = Record<ApiVersion, ServedContract>;

export function loadContracts(): Contracts {
  const served = (version: ApiVersion) => ({ ...loadContract(contractPath(version)), rendition: loadRendition(version) });
  return { v1: served('v1'), v2: served('v2') };
}

/**
 * What each version serves of its contract under its root, in this order: the contract as written (OpenAPI
 * 3.0) and its OpenAPI 3.1 rendition, each as YAML and as JSON.
 */
export const CONTRACT_DOCUMENTS = [
  { name: 'openapi.yaml', type: 'application/yaml', openapi: '3.0' },
  { name: 'openapi.json', type: 'application/json', openapi: '3.0' },
  { name: 'openapi.3.1.yaml', type: 'application/yaml', openapi: '3.1' },
  { name: 'openapi.3.1.json', type: 'application/json', openapi: '3.1' },
] as const;
export type ContractDocument = (typeof CONTRACT_DOCUMENTS)[number];

/** The text that `contract` serves as `document`. */
export function textOf(contract: ServedContract, { type, openapi }: ContractDocument): string {
  const texts = openapi === '3.0' ? contract : contract.rendition;
  return type === 'application/yaml' ? texts.yamlText : texts.jsonText;
}

export class ContractError extends Error {
  override name = 'ContractError';
}

export function loadContract(path: URL | string = CONTRACT_PATH): Contract {
  const yamlText = readFileSync(path, 'utf8');
  const version = API_VERSIONS.find((candidate) => String(path) === String(contractPath(candidate)));
  const jsonText = version === undefined ? undefined : parsedByTheBuild(CONTRACT_FILES[version], yamlText);
  const document = (jsonText === undefined ? parseYaml(yamlText) : JSON.parse(jsonText)) as OpenAPIV3.Document;
  if (typeof document?.openapi !== 'string' || !document.openapi.startsWith('3.0.')) {
    throw new ContractError(`${String(path)} is not an OpenAPI 3.0 document`);
  }
  return { root: rootOf(document), document, yamlText, jsonText: jsonText ?? JSON.stringify(document) };
}

/** The version's OpenAPI 3.1 rendition; a ContractError when its file is not one. */
export function loadRendition(version: ApiVersion): Rendition {
  const file = RENDITION_FILES[version];
  const yamlText = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  // A look at the text, not a parse: the build's JSON spares the server parsing the YAML at start.
  if (!/^openapi: 3\.1\.\d+$/m.test(yamlText)) throw new ContractError(`${file} is not an OpenAPI 3.1 document`);
  const jsonText = parsedByTheBuild(file, yamlText) ?? JSON.stringify(parseYaml(yamlText));
  return { yamlText, jsonText };
}

/**
 * The build's JSON of this very YAML text (scripts/build-contract.mjs writes, for `openapi.v2.yaml` say,
 * `dist/openapi.v2.json` and the YAML's digest beside it, `dist/openapi.v2.yaml.sha256`; the same for a
 * rendition, `generated/` left out); none when running from source or when the YAML changed since.
 */
function parsedByTheBuild(file: string, yamlText: string): string | undefined {
  const name = basename(file, '.yaml');
  const parsedPath = new URL(`../${name}.json`, import.meta.url);
  const parsedFromPath = new URL(`../${name}.yaml.sha256`, import.meta.url);
  if (!existsSync(parsedPath) || !existsSync(parsedFromPath)) return undefined;
  if (readFileSync(parsedFromPath, 'utf8') !== hash('sha256', yamlText)) return undefined;
  return readFileSync(parsedPath, 'utf8');
}

/** `/v1` of `https://api.example/v1`: every server of a contract ends in its version's root. */
function rootOf(document: OpenAPIV3.Document): string {
  const url = document.servers?.[0]?.url;
  if (url === undefined) throw new ContractError('the contract names no server');
  return new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
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
