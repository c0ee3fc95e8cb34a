// Integer path parameters are checked on their raw text: Ajv's coercion would accept `1e3`, ` 7` or `0x10`
// and round values beyond 2^53, so `int64` would let 2^63 through as if it were in range.
// The rule is one thing, and its one message says all of it: decimal digits (an optional `-`, any number of
// leading zeros, as the contract's `integer` allows), whose value is within the schema's minimum and
// maximum and the format's range.
import type { OpenAPIV3 } from 'openapi-types';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';

const INT64: [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];
const RANGES: Record<string, [bigint, bigint]> = { int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: INT64 };

/** The first integer path parameter whose text is not a decimal integer in its schema's range. */
export function invalidIntegerParameter(
  operation: OpenAPIV3.OperationObject,
  rawPathParams: Record<string, unknown>,
): ErrorAnswer<400> | undefined {
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    const schema = parameter.schema as OpenAPIV3.SchemaObject | undefined;
    if (parameter.in !== 'path' || schema?.type !== 'integer') continue;
    const value = rawPathParams[parameter.name];
    const raw = typeof value === 'string' ? value : '';
    const [min, max] = rangeOf(schema);
    if (!/^-?[0-9]+$/.test(raw) || BigInt(raw) < min || BigInt(raw) > max) {
      return apiError('invalid_request',
        `${parameter.name}: must be a whole number from ${min} to ${max} in decimal digits (leading zeros allowed)`,
      );
    }
  }
  return undefined;
}

function rangeOf(schema: OpenAPIV3.SchemaObject): [bigint, bigint] {
  const [formatMin, formatMax] = RANGES[schema.format ?? 'int64'] ?? INT64;
  const { minimum, maximum } = schema;
  const min = Number.isSafeInteger(minimum) ? BigInt(minimum as number) : formatMin;
  const max = Number.isSafeInteger(maximum) ? BigInt(maximum as number) : formatMax;
  return [min > formatMin ? min : formatMin, max < formatMax ? max : formatMax];
}
