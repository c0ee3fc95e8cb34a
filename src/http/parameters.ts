// Integer path parameters are checked on their raw text: Ajv's coercion would accept `1e3`, ` 7` or `0x10`
// and round values beyond 2^53, so `int64` would let 2^63 through as if it were in range.
import type { OpenAPIV3 } from 'openapi-types';
import { apiError, type ErrorResult } from '../contract/errorBody.js';

const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** The first integer path parameter whose text is not a decimal integer in its format's range. */
export function invalidIntegerParameter(
  operation: OpenAPIV3.OperationObject,
  rawPathParams: Record<string, unknown>,
): ErrorResult<400> | undefined {
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    const schema = parameter.schema as OpenAPIV3.SchemaObject | undefined;
    if (parameter.in !== 'path' || schema?.type !== 'integer') continue;
    const value = rawPathParams[parameter.name];
    const raw = typeof value === 'string' ? value : '';
    if (!/^-?[0-9]{1,40}$/.test(raw)) {
      return apiError(400, 'invalid_request', `${parameter.name}: must be an integer written in decimal`);
    }
    const range = RANGES[schema.format ?? 'int64'] ?? RANGES.int64;
    const integer = BigInt(raw);
    if (range && (integer < range[0] || integer > range[1])) {
      return apiError(400, 'invalid_request', `${parameter.name}: must fit in ${schema.format ?? 'int64'}`);
    }
  }
  return undefined;
}
