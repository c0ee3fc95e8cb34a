// The contract's own schemas, compiled for checks made outside the request pipeline (the CLI's orders).
import { Ajv, type ValidateFunction } from 'ajv';
import type { OpenAPIV3 } from 'openapi-types';
import { ContractError, loadContract } from './document.js';
import { configureAjv } from './formats.js';

export type SchemaObject = OpenAPIV3.SchemaObject;

/**
 * A validator of `components.schemas[name]`, as `adapt` shapes it, compiled on its first use and then kept
 * for the life of the process, so that a command that never validates never reads the contract.
 * `$ref`s resolve within openapi.yaml.
 */
export function schemaValidator<T>(
  name: string,
  adapt: (schema: SchemaObject) => SchemaObject = (schema) => schema,
): () => ValidateFunction<T> {
  let validate: ValidateFunction<T> | undefined;
  return () => (validate ??= compile<T>(name, adapt));
}

function compile<T>(name: string, adapt: (schema: SchemaObject) => SchemaObject): ValidateFunction<T> {
  const { components } = loadContract().document;
  const schema = components?.schemas?.[name];
  if (!schema || '$ref' in schema) throw new ContractError(`openapi.yaml has no schema ${name}`);
  // openapi-backend's own options: OpenAPI keywords such as `example` are not JSON Schema, and are ignored.
  const ajv = configureAjv(new Ajv({ strict: false }));
  // The contract's components ride along under the schema, so that `#/components/...` refs resolve.
  return ajv.compile<T>({ ...adapt(schema), components });
}
