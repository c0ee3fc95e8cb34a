// PostgreSQL migration 2: the order list's version, a count of the commits that changed orders.
// Shipped: never edit it; a change is a new migration.
export const orderChanges = `
  -- 2: the order list's version counts the commits that changed orders, so that nothing else (a message,
  -- another database of the cluster) moves it. Each statement on orders appends a row, committed with it:
  -- appends never wait for each other, where one counter row would make every order write wait for it.
  -- A version is the base count plus the rows a snapshot sees; as later snapshots see all that earlier ones
  -- did, equal versions see the same orders. Every thousandth row folds the committed rows into the base,
  -- in the same transaction, so that counting stays short; the sum any snapshot sees is unchanged by it.
  CREATE TABLE order_changes_base (
    id integer PRIMARY KEY CHECK (id = 1),
    changes bigint NOT NULL
  );
  INSERT INTO order_changes_base (id, changes) VALUES (1, 0);
  CREATE TABLE order_changes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);

  CREATE FUNCTION note_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    change_id bigint;
  BEGIN
    INSERT INTO order_changes DEFAULT VALUES RETURNING id INTO change_id;
    IF change_id % 1000 = 0 THEN
      WITH folded AS (DELETE FROM order_changes WHERE id < change_id RETURNING 1)
      UPDATE order_changes_base SET changes = changes + (SELECT count(*) FROM folded);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER orders_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON orders
    FOR EACH STATEMENT EXECUTE FUNCTION note_order_change();
`;
