// `store-orders orders add | import FILE | ship ID | list`
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exactlyOne, parseId } from './args.js';
import { type CliContext, CliError, printJson, usageError, type Verbs, withStore } from './io.js';
import { parseJsonRows } from './jsonRows.js';
import { validOrder } from './orderRows.js';

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
