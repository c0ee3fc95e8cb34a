// The operations of each contract (openapi.yaml for /v1, openapi.v2.yaml for /v2), reduced to what a
// request generator needs: where, how, with what.
import { documents, type Json, resolve, type Version } from '../document.js';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}

export interface OperationSpec {
  /** The API root the operation is under, and the contract it comes from. */
  version: Version;
  operationId: string;
  method: string;
  pathTemplate: string;
  parameters: ParameterSpec[];
  body?: { required: boolean; mediaType: string; schema: Json };
  secured: boolean;
  /** Every method the operation's path answers, for the `Allow` header of a 405. */
  pathMethods: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A schema with every `$ref` replaced by what it points at (the contract has no recursive schemas). */
export function inline(schema: unknown, within: Json): Json {
  const { node } = resolve(schema, '', within);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Json).map(([name, property]) => [name, inline(property, within)]),
      );
    } else if (key === 'items') {
      out.items = inline(value, within);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function operationsOf(version: Version): OperationSpec[] {
  const document = documents[version];
  const globalSecurity = (document.security as unknown[] | undefined) ?? [];
  const specs: OperationSpec[] = [];
  for (const [pathTemplate, item] of Object.entries(document.paths as Json)) {
    const pathItem = item as Json;
    const pathMethods = METHODS.filter((method) => method in pathItem).map((method) => method.toUpperCase());
    for (const method of METHODS.filter((candidate) => candidate in pathItem)) {
      const operation = pathItem[method] as Json;
      const parameters = [
        ...((pathItem.parameters as unknown[] | undefined) ?? []),
        ...((operation.parameters as unknown[] | undefined) ?? []),
      ].map((parameter) => {
        const { node } = resolve(parameter, '', document);
        return {
          name: node.name as string,
          in: node.in as ParameterSpec['in'],
          required: node.required === true,
          schema: inline(node.schema, document),
        };
      });
      const spec: OperationSpec = {
        version,
        operationId: operation.operationId as string,
        method: method.toUpperCase(),
        pathTemplate,
        parameters,
        secured: ((operation.security as unknown[] | undefined) ?? globalSecurity).length > 0,
        pathMethods,
      };
      if (operation.requestBody) {
        const { node: requestBody } = resolve(operation.requestBody, '', document);
        const [mediaType, media] = Object.entries(requestBody.content as Json)[0] as [string, Json];
        spec.body = { required: requestBody.required === true, mediaType, schema: inline(media.schema, document) };
      }
      specs.push(spec);
    }
  }
  return specs;
}

/** v1's operations, then v2's. */
export const operations = [...operationsOf('v1'), ...operationsOf('v2')];
