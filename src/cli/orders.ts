// `store-orders orders add | import FILE | ship ID | list`
import { readFileSync } from 'node:fs';
import { exactlyOne, onlyOptions, parseId } from './args.js';
import type { Noun } from './command.js';
import { type CliContext, CliError, printJson, UsageError, withStore } from './io.js';
import { parseJsonRows } from './jsonRows.js';
import { FILTER_HELP, FILTER_OPTIONS, parseOrderFilter } from './orderFilter.js';
import { validOrder } from './orderRows.js';

export const orders: Noun = {
  summary: 'Orders: the API lists and cancels them; only the operator adds and ships them',
  verbs: {
    add: {
      usage: 'orders add --pet-id N --quantity N [--ship-date ISO] [--complete] [--status pending|shipped]',
      summary: 'add an order; prints it with its id',
      description: [
        'Adds an order, as the API cannot, and prints it as JSON with the id the store gave it and its',
        'status. The API lists it at once.',
        '',
        '  --pet-id N          the pet ordered: a positive whole number (required)',
        '  --quantity N        how many: a whole number from 1 to 2147483647 (required)',
        '  --ship-date ISO     when it ships: an ISO 8601 date-time with a time zone, stored in UTC',
        '  --complete          mark the order complete (default: not complete)',
        '  --status STATUS     pending (the default) or shipped; the API cannot cancel a shipped order',
      ].join('\n'),
      run: addOrder,
    },
    import: {
      usage: 'orders import FILE',
      summary: 'import a JSON array of orders in one transaction',
      description:
        'Imports FILE, a JSON array of orders (petId, quantity, shipDate, complete, status, all optional),\n' +
        'in one transaction, and prints the count. Every row is checked first: a bad row is named and\n' +
        'nothing is imported.',
      run: (context, args) => importOrders(context, exactlyOne(args, 'FILE')),
    },
    ship: {
      usage: 'orders ship ID',
      summary: 'mark a pending order shipped',
      description:
        'Moves the pending order ID to shipped and prints it as JSON. The API can no longer cancel it.\n' +
        'An order that is not pending (shipped, cancelled) is refused.',
      run: (context, args) => shipOrder(context, parseId(exactlyOne(args, 'order ID'), 'the order ID')),
    },
    list: {
      usage: 'orders list [--status S[,S…]] [--pet-id N] [--complete true|false] [--ship-date-from ISO] [--ship-date-before ISO]',
      summary: 'all orders with their status, cancelled ones included, or those matching filters',
      description: [
        'Prints every order as JSON with its status (pending, shipped or cancelled) and times, cancelled',
        "ones included, which the API's v1 list leaves out. The filters are those of the API's v2 list, with",
        'the same meaning; each one given narrows the list.',
        '',
        ...FILTER_HELP,
      ].join('\n'),
      run: listOrders,
    },
  },
};

async function listOrders(context: CliContext, args: string[]): Promise<void> {
  const values = onlyOptions(args, FILTER_OPTIONS);
  const filter = Object.keys(values).length === 0 ? undefined : parseOrderFilter(values);
  await withStore(context, async ({ orders }) => printJson(context, await orders.listAllOrders(filter)));
}

async function addOrder(context: CliContext, args: string[]): Promise<void> {
  const values = onlyOptions(args, {
    'pet-id': 'string',
    quantity: 'string',
    'ship-date': 'string',
    complete: 'boolean',
    status: 'string',
  });
  if (values['pet-id'] === undefined || values.quantity === undefined) {
    throw new UsageError('needs --pet-id N and --quantity N');
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
    (message) => new UsageError(message),
  );
  await withStore(context, async ({ orders }) => printJson(context, await orders.addOrder(order)));
}

async function importOrders(context: CliContext, file: string): Promise<void> {
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
  await withStore(context, async (store) => context.out(`Imported ${await store.orders.importOrders(orders)} orders.`));
}

async function shipOrder(context: CliContext, orderId: number): Promise<void> {
  await withStore(context, async ({ orders }) => {
    const outcome = await orders.shipOrder(orderId);
    if (outcome === 'missing') throw new CliError(`no order ${orderId}`);
    if (outcome === 'not_pending') {
      throw new CliError(
        `order ${orderId} is ${(await orders.findOrder(orderId))?.status}; only a pending order can ship`,
      );
    }
    printJson(context, await orders.findOrder(orderId));
  });
}
