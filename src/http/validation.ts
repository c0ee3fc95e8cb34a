// The one message of a 400 invalid_request: the first thing Ajv found wrong, named by the field the client
// knows (`body.message`, `orderId`), not by openapi-backend's internal paths.
import type { ErrorObject } from 'ajv';

export function describeValidationErrors(errors: ErrorObject[]): string {
  // openapi-backend adds a `parse` error for any non-object JSON body; the body was already parsed by us,
  // so the schema's own complaint ("must be object") is the useful one.
  const error = errors.find(({ keyword }) => keyword !== 'parse');
  if (!error) return 'The request does not match the contract';
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  if (params.missingProperty === 'requestBody') return 'body: is required';
  const detail = params.additionalProperty
    ? `must not have the property "${params.additionalProperty}"`
    : (error.message ?? 'is invalid');
  return `${fieldOf(error.instancePath)}: ${detail}`;
}

/** `/requestBody/message` → `body.message`, `/path/orderId` → `orderId`, `/query` → `query`. */
function fieldOf(instancePath: string): string {
  const [, part = '', ...rest] = instancePath.split('/');
  if (part === 'requestBody') return ['body', ...rest].join('.');
  return rest.length > 0 ? rest.join('.') : part || 'request';
}
