// An order as the operator gives it (`orders add`, each row of `orders import`), checked by the contract's
// own Order schema: less the id the store assigns, plus the status that only the CLI sets.
import type { ErrorObject } from 'ajv';
import { INT32 } from '../contract/formats.js';
import { FIRST_INSTANT, LAST_INSTANT, storedShipDate } from '../contract/instants.js';
import { type SchemaObject, schemaValidator } from '../contract/schemas.js';
import { type NewOrder, ORDER_STATUSES } from '../store/store.js';
import type { CliError } from './io.js';

const validateOrder = schemaValidator<NewOrder>('Order', (order) => {
  const properties = { ...order.properties };
  delete properties.id;
  properties.status = { type: 'string', enum: ORDER_STATUSES.filter((status) => status !== 'cancelled') };
  return { ...order, required: [], properties };
});

/** The order, with its shipDate in UTC, or `fail` with a message naming the field and what it takes. */
export function validOrder(raw: unknown, where: string, fail: (message: string) => CliError): NewOrder {
  const validate = validateOrder();
  const schema = validate.schema as SchemaObject;
  if (!validate(raw)) throw fail(describeError(validate.errors?.[0], schema, where));
  const order = { ...raw };
  // The store and the API hold ids as JavaScript numbers, which are exact only up to 2^53.
  const inexact = Object.entries(order).find(
    ([, value]) => typeof value === 'number' && !Number.isSafeInteger(value),
  );
  if (inexact) throw fail(`${where}: ${inexact[0]} must be at most ${Number.MAX_SAFE_INTEGER}`);
  if (order.shipDate !== undefined) {
    // A leap second (23:59:60) is a valid date-time that a JavaScript Date cannot hold.
    if (Number.isNaN(Date.parse(order.shipDate))) throw fail(fieldMessage('shipDate', schema, where));
    const shipDate = storedShipDate(order.shipDate);
    if (shipDate === undefined) {
      throw fail(`${where}: shipDate must be from ${FIRST_INSTANT} to ${LAST_INSTANT} in UTC (four-digit years)`);
    }
    order.shipDate = shipDate;
  }
  return order;
}

/** Whether `text` is a date-time as the contract's Order takes a ship date (RFC 3339, with a time zone). */
export function isDateTime(text: string): boolean {
  return validateOrder()({ shipDate: text });
}

function describeError(error: ErrorObject | undefined, schema: SchemaObject, where: string): string {
  if (error?.keyword === 'additionalProperties') {
    const { additionalProperty } = error.params as { additionalProperty: string };
    return `${where}: unknown field "${additionalProperty}"`;
  }
  const field = error?.instancePath.split('/')[1];
  return field === undefined ? `${where} must be an object` : fieldMessage(field, schema, where);
}

function fieldMessage(field: string, schema: SchemaObject, where: string): string {
  return `${where}: ${field} must be ${accepted(schema.properties?.[field] as SchemaObject)}`;
}

/** What a field takes, in the operator's words, read from its schema. */
function accepted(field: SchemaObject): string {
  if (field.enum) return field.enum.join(' or ');
  if (field.type === 'boolean') return 'true or false';
  if (field.format === 'date-time') {
    return `an ISO 8601 date-time with a time zone${field.example ? `, like ${field.example}` : ''}`;
  }
  if (field.type === 'integer') {
    const int32 = field.format === 'int32';
    const min = field.minimum ?? (int32 ? INT32.min : undefined);
    const max = field.maximum ?? (int32 ? INT32.max : undefined);
    if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
    if (min !== undefined) return `an integer of at least ${min}`;
    return max === undefined ? 'an integer' : `an integer of at most ${max}`;
  }
  return `a valid ${field.type ?? 'value'}`;
}
