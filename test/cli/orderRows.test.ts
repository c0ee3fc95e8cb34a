import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/io.js';
import { validOrder } from '../../src/cli/orderRows.js';

const check = (raw: unknown) => validOrder(raw, 'row 1', (message) => new CliError(message));

describe('validOrder', () => {
  it('takes the fields of the contract Order, less id, plus status, and gives the shipDate in UTC', () => {
    const row = { petId: 7, quantity: 2, shipDate: '2026-12-01T09:00:00+01:00', complete: true };
    expect(check({ ...row, status: 'shipped' })).toEqual({
      ...row,
      shipDate: '2026-12-01T08:00:00.000Z',
      status: 'shipped',
    });
    expect(check({})).toEqual({});
  });

  it('checks a date-time as the server does: RFC 3339 also allows a space for the T', () => {
    expect(check({ shipDate: '2026-12-01 09:00:00Z' })).toEqual({ shipDate: '2026-12-01T09:00:00.000Z' });
  });

  it.each([
    [42, 'row 1 must be an object'],
    [[], 'row 1 must be an object'],
    [{ id: 5 }, 'row 1: unknown field "id"'],
    [{ petId: 0 }, 'row 1: petId must be an integer of at least 1'],
    [{ petId: '7' }, 'row 1: petId must be an integer of at least 1'],
    [{ petId: 2 ** 53 }, 'row 1: petId must be at most 9007199254740991'],
    [{ quantity: 2147483648 }, 'row 1: quantity must be an integer from 1 to 2147483647'],
    [{ quantity: 1.5 }, 'row 1: quantity must be an integer from 1 to 2147483647'],
    [{ complete: 'yes' }, 'row 1: complete must be true or false'],
    [{ status: 'cancelled' }, 'row 1: status must be pending or shipped'],
    [{ shipDate: '2026-12-01' }, 'row 1: shipDate must be an ISO 8601 date-time with a time zone, like'],
    [{ shipDate: '2026-12-01T09:00:00' }, 'row 1: shipDate must be an ISO 8601 date-time'],
    [{ shipDate: '2026-02-30T09:00:00Z' }, 'row 1: shipDate must be an ISO 8601 date-time'],
    // Valid RFC 3339, but a JavaScript Date cannot hold a leap second.
    [{ shipDate: '2026-12-31T23:59:60Z' }, 'row 1: shipDate must be an ISO 8601 date-time'],
  ])('refuses %j, naming the field and what it takes', (raw, message) => {
    expect(() => check(raw)).toThrow(message);
  });
});
