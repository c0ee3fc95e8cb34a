// `store-orders orders add | import FILE | ship ID | list`
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { NewOrder } from '../store/store.js';
import { parseJsonRows } from './jsonRows.js';
import {
  type CliContext,
  CliError,
  exactlyOne,
  parseId,
  printJson,
  usageError,
  type Verbs,
  withStore,
} from './io.js';

const MAX_QUANTITY = 2 ** 31 - 1;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const ORDER_FIELDS = new Set(['petId', 'quantity', 'shipDate', 'complete', 'status']);

export const ordersVerbs: Verbs = {
  add: addOrder,
  import: (context, args) => importOrders(context, exactlyOne(args, 'FILE')),
  ship: (context, args) => shipOrder(context, parseId(exactlyOne(args, 'order ID'), 'the order ID')),
  list: (context) => withStore(context, (store) => printJson(context, store.listAllOrders())),
};

function addOrder(context: CliContext, args: string[]): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      'pet-id': { type: 'string' },
      quantity: { type: 'string' },
      'ship-date': { type: 'string' },
      complete: { type: 'boolean' },
      status: { type: 'string' },
    },
  });
  if (values['pet-id'] === undefined || values.quantity === undefined) {
    throw usageError('orders add needs --pet-id N and --quantity N');
  }
  const order = validOrder(
    {
      petId: parseId(values['pet-id'], '--pet-id'),
      quantity: parseId(values.quantity, '--quantity'),
      ...(values['ship-date'] !== undefined && { shipDate: values['ship-date'] }),
      complete: values.complete ?? false,
      ...(values.status !== undefined && { status: values.status }),
    },
    'the order',
    usageError,
  );
  withStore(context, (store) => printJson(context, store.addOrder(order)));
}

function importOrders(context: CliContext, file: string): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parseJsonRows(text);
  if ('error' in parsed) {
    const where = parsed.row === undefined ? '' : ` (row ${parsed.row})`;
    throw new CliError(`${file} is not valid JSON${where}: ${parsed.error}`);
  }
  const { rows } = parsed;
  if (!Array.isArray(rows)) throw new CliError(`${file} must hold a JSON array of orders`);
  const fail = (message: string) => new CliError(message);
  // Every row is checked before the one transaction starts, so a bad row changes nothing.
  const orders = rows.map((row, index) => validOrder(row, `${file}: row ${index + 1}`, fail));
  withStore(context, (store) => context.out(`Imported ${store.importOrders(orders)} orders.`));
}

function shipOrder(context: CliContext, orderId: number): void {
  withStore(context, (store) => {
    const outcome = store.shipOrder(orderId);
    if (outcome === 'missing') throw new CliError(`no order ${orderId}`);
    if (outcome === 'not_pending') {
      throw new CliError(
        `order ${orderId} is ${store.findOrder(orderId)?.status}; only a pending order can ship`,
      );
    }
    printJson(context, store.findOrder(orderId));
  });
}

/** Checks one order from the CLI or an import file against the Order schema's rules. */
function validOrder(raw: unknown, where: string, fail: (message: string) => CliError): NewOrder {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail(`${where} must be an object`);
  const row = raw as Record<string, unknown>;
  const unknown = Object.keys(row).find((field) => !ORDER_FIELDS.has(field));
  if (unknown !== undefined) throw fail(`${where}: unknown field "${unknown}"`);
  const order: NewOrder = {};
  if (row.petId !== undefined) {
    if (!Number.isSafeInteger(row.petId) || (row.petId as number) < 1)
      throw fail(`${where}: petId must be a positive integer`);
    order.petId = row.petId as number;
  }
  if (row.quantity !== undefined) {
    const quantity = row.quantity as number;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
      throw fail(`${where}: quantity must be an integer from 1 to ${MAX_QUANTITY}`);
    }
    order.quantity = quantity;
  }
  if (row.shipDate !== undefined) {
    const shipDate = row.shipDate;
    if (typeof shipDate !== 'string' || !RFC3339.test(shipDate) || Number.isNaN(Date.parse(shipDate))) {
      throw fail(
        `${where}: shipDate must be an ISO 8601 date-time with a time zone, like 2026-12-01T09:00:00Z`,
      );
    }
    order.shipDate = new Date(shipDate).toISOString();
  }
  if (row.complete !== undefined) {
    if (typeof row.complete !== 'boolean') throw fail(`${where}: complete must be true or false`);
    order.complete = row.complete;
  }
  if (row.status !== undefined) {
    if (row.status !== 'pending' && row.status !== 'shipped')
      throw fail(`${where}: status must be pending or shipped`);
    order.status = row.status;
  }
  return order;
}
