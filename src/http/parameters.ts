// Integer parameters are checked on their raw text: Ajv's coercion would accept `1e3`, ` 7` or `0x10`
// and round values beyond 2^53, so `int64` would let 2^63 through as if it were in range.
// For a path parameter the rule is one thing, and its one message says all of it: decimal digits (an
// optional `-`, any number of leading zeros, as the contract's `integer` allows), whose value is within the
// schema's minimum and maximum and the format's range. A query parameter's text is held to the digits here,
// and an int64's to its range; the rest of a query integer's range is the validator's, which gives v2's
// `limit` a code of its own.
import type { OpenAPIV3 } from 'openapi-types';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';

const INT64: [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];
const RANGES: Record<string, [bigint, bigint]> = { int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: INT64 };

/** The first integer path or query parameter whose text is not a decimal integer in its range. */
export function invalidIntegerParameter(
  operation: OpenAPIV3.OperationObject,
  rawPathParams: Record<string, unknown>,
  rawQuery: Record<string, unknown>,
): ErrorAnswer<400> | undefined {
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    const schema = parameter.schema as OpenAPIV3.SchemaObject | undefined;
    if (schema?.type !== 'integer') continue;
    if (parameter.in === 'path') {
      const value = rawPathParams[parameter.name];
      const [min, max] = rangeOf(schema);
      if (!isDecimalIn(typeof value === 'string' ? value : '', min, max)) {
        return apiError('invalid_request',
          `${parameter.name}: must be a whole number from ${min} to ${max} in decimal digits (leading zeros allowed)`,
        );
      }
      continue;
    }
    if (parameter.in !== 'query') continue;
    const value = rawQuery[parameter.name];
    // Absent, or repeated: the validator says what is wrong with those.
    if (typeof value !== 'string') continue;
    if (!/^-?[0-9]+$/.test(value)) {
      return apiError('invalid_request', `${parameter.name}: must be a whole number in decimal digits`);
    }
    // Beyond 2^53 the validator would see a rounded number; a smaller format's range is its to check.
    const [min, max] = rangeOf(schema);
    if ((schema.format ?? 'int64') === 'int64' && !isDecimalIn(value, min, max)) {
      return apiError('invalid_request', `${parameter.name}: must be a whole number from ${min} to ${max}`);
    }
  }
  return undefined;
}

function isDecimalIn(text: string, min: bigint, max: bigint): boolean {
  return /^-?[0-9]+$/.test(text) && BigInt(text) >= min && BigInt(text) <= max;
}

function rangeOf(schema: OpenAPIV3.SchemaObject): [bigint, bigint] {
  const [formatMin, formatMax] = RANGES[schema.format ?? 'int64'] ?? INT64;
  const { minimum, maximum } = schema;
  const min = Number.isSafeInteger(minimum) ? BigInt(minimum as number) : formatMin;
  const max = Number.isSafeInteger(maximum) ? BigInt(maximum as number) : formatMax;
  return [min > formatMin ? min : formatMin, max < formatMax ? max : formatMax];
}
