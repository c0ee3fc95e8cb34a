// PostgreSQL migration 6: ship dates within the years 0000 to 9999 in UTC.
// Shipped: never edit it; a change is a new migration.
export const shipDateRange = `
  -- 6: ship dates are compared as text, which orders instants in time only within years 0000 to 9999 in
  -- UTC, the only ones RFC 3339 can write. Earlier versions stored any the CLI was given, such as
  -- 9999-12-31T23:00:00-01:00 as +010000-01-01T00:00:00.000Z; each such date becomes the nearest instant
  -- the store keeps, on the same side of every other, and no other can be stored from now on.
  UPDATE orders
  SET ship_date = CASE WHEN ship_date LIKE '-%' THEN '0000-01-01T00:00:00.000Z' ELSE '9999-12-31T23:59:59.999Z' END,
    updated_at = to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  WHERE ship_date !~ '^[0-9]{4}-';
  ALTER TABLE orders ADD CONSTRAINT ship_date_in_range CHECK (ship_date ~ '^[0-9]{4}-');
`;
