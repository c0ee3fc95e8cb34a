import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useCliFixture } from '../support/cliFixture.js';
import { apiClient } from '../support/http.js';

const fixture = useCliFixture();
let key: string;
beforeEach(async () => {
  key = await fixture.newKey();
});
const api = () => apiClient(fixture.server.baseUrl, key);
const cancel = (orderId: number) =>
  api().DELETE('/store/orders/{orderId}', { params: { path: { orderId } } });

interface CliOrder {
  id: number;
  status: string;
}

describe('store-orders orders add', () => {
  it('prints the created order with its id and status, and the API lists it at once', async () => {
    // As a process: the family's run of the real CLI.
    const added = await fixture.cliProcess(
      'orders',
      'add',
      '--pet-id',
      '7',
      '--quantity',
      '2',
      '--ship-date',
      '2026-12-01T09:00:00+01:00',
      '--complete',
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const order = JSON.parse(added.stdout) as CliOrder;
    expect(order).toMatchObject({
      id: 1,
      petId: 7,
      quantity: 2,
      shipDate: '2026-12-01T08:00:00.000Z',
      complete: true,
      status: 'pending',
    });
    const { data } = await api().GET('/store/orders');
    expect(data).toEqual([
      { id: 1, petId: 7, quantity: 2, shipDate: '2026-12-01T08:00:00.000Z', complete: true },
    ]);
  });

  it('shows in the very next listOrders even after the server cached the list, with a new ETag', async () => {
    await fixture.cliJson('orders', 'add', '--pet-id', '1', '--quantity', '1');
    const before = await api().GET('/store/orders');
    const etag = before.response.headers.get('etag') ?? '';
    expect(before.data?.map(({ id }) => id)).toEqual([1]);

    await fixture.cliJson('orders', 'add', '--pet-id', '2', '--quantity', '1');
    const after = await api().GET('/store/orders', { params: { header: { 'If-None-Match': etag } } });
    expect(after.response.status).toBe(200);
    expect(after.data?.map(({ id }) => id)).toEqual([1, 2]);
    expect(after.response.headers.get('etag')).not.toBe(etag);
  });

  it('can add a shipped order, which the API refuses to cancel', async () => {
    const order = await fixture.cliJson<CliOrder>(
      'orders',
      'add',
      '--pet-id',
      '1',
      '--quantity',
      '1',
      '--status',
      'shipped',
    );
    expect(order.status).toBe('shipped');
    expect((await cancel(order.id)).response.status).toBe(409);
  });

  it.each([
    [['--pet-id', 'abc', '--quantity', '1'], /--pet-id must be a positive whole number/],
    [['--pet-id', '1', '--quantity', '0'], /--quantity must be a positive whole number/],
    [['--pet-id', '1', '--quantity', '2147483648'], /quantity must be an integer from 1/],
    [['--pet-id', '1'], /needs --pet-id N and --quantity N/],
    [
      ['--pet-id', '1', '--quantity', '1', '--ship-date', 'tomorrow'],
      /shipDate must be an ISO 8601 date-time/,
    ],
    [
      ['--pet-id', '1', '--quantity', '1', '--ship-date', '2026-12-01'],
      /shipDate must be an ISO 8601 date-time/,
    ],
    // An instant of the year 10000 in UTC, and one of the year -1: no answer could carry either.
    [
      ['--pet-id', '1', '--quantity', '1', '--ship-date', '9999-12-31T23:00:00-01:00'],
      /shipDate must be from 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z in UTC/,
    ],
    [
      ['--pet-id', '1', '--quantity', '1', '--ship-date', '0000-01-01T00:30:00+01:00'],
      /shipDate must be from 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z in UTC/,
    ],
    [['--pet-id', '1', '--quantity', '1', '--status', 'cancelled'], /status must be pending or shipped/],
    [['--pet-id', '1', '--quantity', '1', '--colour', 'red'], /unknown option --colour/],
    [['--pet-id', '1', '--quantity', '-1'], /--quantity must be a positive whole number, got "-1"/],
  ])('refuses %j with a clear message and a non-zero exit', async (args, message) => {
    const result = await fixture.cli('orders', 'add', ...args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(await fixture.cliJson('orders', 'list')).toEqual([]);
  });
});

describe('store-orders orders ship', () => {
  it('moves a pending order to shipped, after which the API cannot cancel it', async () => {
    const order = await fixture.cliJson<CliOrder>('orders', 'add', '--pet-id', '1', '--quantity', '1');
    expect((await fixture.cliJson<CliOrder>('orders', 'ship', String(order.id))).status).toBe('shipped');
    expect((await cancel(order.id)).response.status).toBe(409);
  });

  it('refuses a missing order and an order that is not pending', async () => {
    expect((await fixture.cli('orders', 'ship', '99')).stderr).toMatch(/no order 99/);
    const order = await fixture.cliJson<CliOrder>('orders', 'add', '--pet-id', '1', '--quantity', '1');
    expect((await cancel(order.id)).response.status).toBe(204);
    const result = await fixture.cli('orders', 'ship', String(order.id));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is cancelled; only a pending order can ship/);
  });

  it('refuses an id that is not a positive whole number', async () => {
    const result = await fixture.cli('orders', 'ship', 'x1');
    expect(result.code).toBe(2);
  });
});

describe('store-orders orders import', () => {
  const importFile = (content: string) => {
    const file = join(fixture.server.dbPath, '..', 'orders.json');
    writeFileSync(file, content);
    return file;
  };

  it('imports an array of orders in one go and prints the count', async () => {
    const file = importFile(
      JSON.stringify([
        { petId: 1, quantity: 1 },
        { petId: 2, quantity: 3, status: 'shipped', complete: true },
        { petId: 3 },
      ]),
    );
    const result = await fixture.cli('orders', 'import', file);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('Imported 3 orders.');
    const orders = await fixture.cliJson<CliOrder[]>('orders', 'list');
    expect(orders.map((order) => order.status)).toEqual(['pending', 'shipped', 'pending']);
  });

  it('changes nothing when a row halfway through is bad, and names that row', async () => {
    const file = importFile(
      JSON.stringify([
        { petId: 1, quantity: 1 },
        { petId: 2, quantity: 1 },
        { petId: 3, quantity: -5 },
        { petId: 'x' },
      ]),
    );
    const result = await fixture.cli('orders', 'import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/row 3: quantity must be/);
    expect(await fixture.cliJson('orders', 'list')).toEqual([]);
  });

  it.each([
    ['[{"petId":1,"quantity":1},', /is not valid JSON \(row 2\)/],
    [
      '[{"petId":1,"quantity":1},\n{"petId":2,"quantity":1},\n{"petId":3,quantity:1},\n{"petId":4,"quantity":1}]',
      /is not valid JSON \(row 3\)/,
    ],
    ['{"petId":1}', /must hold a JSON array/],
    ['[{"petId":1,"quantity":1,"id":5}]', /row 1: unknown field "id"/],
    ['[42]', /row 1 must be an object/],
    ['[{"petId":1},{"petId":2,"shipDate":"9999-12-31T23:59:59.9999-00:01"}]', /row 2: shipDate must be from 0000-01-01/],
  ])('refuses %s and changes nothing', async (content, message) => {
    const result = await fixture.cli('orders', 'import', importFile(content));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(await fixture.cliJson('orders', 'list')).toEqual([]);
  });

  it('refuses a file it cannot read', async () => {
    const result = await fixture.cli('orders', 'import', '/no/such/file.json');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot read/);
  });
});

describe('store-orders orders list', () => {
  it('shows every order with its status, cancelled ones included', async () => {
    const order = await fixture.cliJson<CliOrder>('orders', 'add', '--pet-id', '1', '--quantity', '1');
    await fixture.cliJson('orders', 'add', '--pet-id', '2', '--quantity', '1');
    expect((await cancel(order.id)).response.status).toBe(204);
    const orders = await fixture.cliJson<CliOrder[]>('orders', 'list');
    expect(orders.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: 1, status: 'cancelled' },
      { id: 2, status: 'pending' },
    ]);
    expect((await api().GET('/store/orders')).data?.map((listed) => listed.id)).toEqual([2]);
  });

  it("takes the v2 list's filters: statuses, pet, completion and a ship-date range, each narrowing the list", async () => {
    const add = (...args: string[]) => fixture.cliJson<CliOrder>('orders', 'add', '--quantity', '1', ...args);
    await add('--pet-id', '1', '--ship-date', '2026-01-01T00:00:00Z', '--complete');
    await add('--pet-id', '2', '--ship-date', '2026-02-01T01:00:00+01:00', '--status', 'shipped');
    const third = await add('--pet-id', '1');
    await add('--pet-id', '1', '--ship-date', '2026-03-01T00:00:00Z');
    expect((await cancel(third.id)).response.status).toBe(204);
    const ids = async (...args: string[]) =>
      (await fixture.cliJson<CliOrder[]>('orders', 'list', ...args)).map(({ id }) => id);

    expect(await ids('--status', 'cancelled')).toEqual([3]);
    expect(await ids('--status', 'pending,shipped')).toEqual([1, 2, 4]);
    expect(await ids('--pet-id', '1')).toEqual([1, 3, 4]);
    expect(await ids('--pet-id', '1', '--status', 'pending')).toEqual([1, 4]);
    expect(await ids('--complete', 'true')).toEqual([1]);
    expect(await ids('--complete', 'false')).toEqual([2, 3, 4]);
    // The bound is an instant: 01:00 at +01:00 is midnight UTC, the bound's own instant (inclusive).
    expect(await ids('--ship-date-from', '2026-02-01T00:00:00Z')).toEqual([2, 4]);
    expect(await ids('--ship-date-before', '2026-02-01T00:00:00Z')).toEqual([1]);
    expect(await ids('--ship-date-from', '2026-01-01T00:00:00Z', '--ship-date-before', '2026-12-31T00:00:00Z')).toEqual([
      1, 2, 4,
    ]);
    // As v2 reads them: a leap second is followed by the next minute; beyond the year 9999 in UTC is after
    // every ship date, before the year 0000 before every one.
    expect(await ids('--ship-date-before', '2026-01-31T23:59:60Z')).toEqual([1]);
    expect(await ids('--ship-date-from', '9999-12-31T23:00:00-01:00')).toEqual([]);
    expect(await ids('--ship-date-before', '9999-12-31T23:00:00-01:00')).toEqual([1, 2, 4]);
    expect(await ids('--ship-date-from', '0000-01-01T00:00:00+01:00')).toEqual([1, 2, 4]);
    expect(await ids('--ship-date-before', '0000-01-01T00:00:00+01:00')).toEqual([]);
  });

  it('refuses a filter it cannot read, with exit 2 and what the option takes', async () => {
    for (const [args, message] of [
      [['--status', 'pending,lost'], '--status takes pending, shipped, cancelled, separated by commas; got "lost"'],
      [['--complete', 'yes'], '--complete must be true or false, got "yes"'],
      [['--pet-id', '0'], '--pet-id must be a positive whole number, got "0"'],
      [['--ship-date-from', '2026-02-01'], '--ship-date-from must be an ISO 8601 date-time with a time zone'],
      [['--ship-date-before', 'soon'], '--ship-date-before must be an ISO 8601 date-time with a time zone'],
      [['--limit', '5'], 'unknown option --limit'],
    ] as const) {
      const result = await fixture.cli('orders', 'list', ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
