// PostgreSQL migration 3: indexes for v2's pages.
// Shipped: never edit it; a change is a new migration.
export const pageIndexes = `
  -- 3: pages of orders (API v2) read each status asked for by id, from an index that leads with it, or with
  -- the pet when one is named (store/orderPages.ts).
  CREATE INDEX orders_by_status_id ON orders (status, id);
  CREATE INDEX orders_by_pet ON orders (pet_id, status, id);
  DROP INDEX orders_by_status;
`;
