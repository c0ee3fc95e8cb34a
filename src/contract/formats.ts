// How the formats openapi.yaml uses are checked, the same for the server's validators and the CLI's.
import type { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

/** The range of an OpenAPI `int32`: a signed 32-bit integer. */
export const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

/**
 * Adds the contract's formats to an Ajv instance and returns it (openapi-backend's `customizeAjv`).
 * openapi-backend registers `int32` itself; it is set here too, to the same rule, so that an Ajv made
 * outside openapi-backend checks the contract exactly as the server does.
 */
export function configureAjv(ajv: Ajv): Ajv {
  addFormats.default(ajv, ['date-time']);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (value: number) => value >= INT32.min && value <= INT32.max,
  });
  // Path integers arrive as text and are range-checked exactly in parameters.ts; after coercion to a
  // float, 2^63 - 1 rounds up to 2^63 and openapi-backend's own int64 check would refuse it.
  ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
  return ajv;
}
