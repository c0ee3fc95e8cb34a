// The operations of openapi.yaml, reduced to what a request generator needs: where, how, with what.
import { document, type Json, resolve } from '../document.js';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}

export interface OperationSpec {
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
export function inline(schema: unknown): Json {
  const { node } = resolve(schema, '');
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Json).map(([name, property]) => [name, inline(property)]),
      );
    } else if (key === 'items') {
      out.items = inline(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function operationsOf(): OperationSpec[] {
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
        const { node } = resolve(parameter, '');
        return {
          name: node.name as string,
          in: node.in as ParameterSpec['in'],
          required: node.required === true,
          schema: inline(node.schema),
        };
      });
      const spec: OperationSpec = {
        operationId: operation.operationId as string,
        method: method.toUpperCase(),
        pathTemplate,
        parameters,
        secured: ((operation.security as unknown[] | undefined) ?? globalSecurity).length > 0,
        pathMethods,
      };
      if (operation.requestBody) {
        const { node: requestBody } = resolve(operation.requestBody, '');
        const [mediaType, media] = Object.entries(requestBody.content as Json)[0] as [string, Json];
        spec.body = { required: requestBody.required === true, mediaType, schema: inline(media.schema) };
      }
      specs.push(spec);
    }
  }
  return specs;
}

export const operations = operationsOf();
