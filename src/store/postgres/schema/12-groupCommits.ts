// PostgreSQL migration 12: the writes of one turn of a server's event loop go in one statement.
// Shipped: never edit it; a change is a new migration.
export const groupCommits = `
  -- 12: queue_message_checked (migration 11) and move_order_for_key (migration 8) for many writes at once,
  -- in their order, each under its own key: one statement and one commit for all of them, which the
  -- server's group commit sends (store/postgres/groupCommit.ts). A write whose key is not active writes
  -- nothing, and the others go on.

  -- Answers the ids of the messages whose key is not active; all the others are written.
  CREATE FUNCTION queue_messages_checked(
    p_keys bytea[], p_ids text[], p_bodies bytea[], p_created_at text[], budget_ms integer
  ) RETURNS text[] LANGUAGE plpgsql AS $$
  DECLARE
    written text[];
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    WITH inserted AS (
      INSERT INTO messages (id, account_id, body, status, created_at)
        SELECT m.id, k.account_id, m.body, 'queued', m.created_at
        FROM unnest(p_keys, p_ids, p_bodies, p_created_at) WITH ORDINALITY AS m (key, id, body, created_at, n)
        JOIN api_keys k ON k.digest = m.key AND k.revoked_at IS NULL
        ORDER BY m.n
        RETURNING id
    )
    SELECT coalesce(array_agg(id), '{}') INTO written FROM inserted;
    PERFORM end_within_budget(budget_ms);
    IF cardinality(written) = cardinality(p_ids) THEN
      RETURN '{}';
    END IF;
    RETURN ARRAY(SELECT id FROM unnest(p_ids) AS m (id) WHERE id <> ALL (written));
  END $$;

  -- Answers, for each move in its order, what move_order_for_key would: the status the order had (NULL:
  -- no such order), or 'unauthorized'. An order whose row another transaction holds is not waited for:
  -- its answer is 'busy', and nothing of that move is written; the server makes it alone, which waits as
  -- move_order_for_key does. So one held order delays no other write, and these statements never wait
  -- for one another.
  CREATE FUNCTION move_orders_for_keys(
    p_keys bytea[], order_ids bigint[], from_statuses text[], to_statuses text[], at text, budget_ms integer
  ) RETURNS text[] LANGUAGE plpgsql AS $$
  DECLARE
    answers text[] := '{}';
    found_status text;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    FOR i IN 1 .. cardinality(order_ids) LOOP
      SELECT status INTO found_status FROM orders WHERE id = order_ids[i] FOR UPDATE SKIP LOCKED;
      IF NOT FOUND AND EXISTS (SELECT 1 FROM orders WHERE id = order_ids[i]) THEN
        answers := answers || 'busy'::text;
      ELSIF p_keys[i] IS NOT NULL AND NOT key_is_active(p_keys[i]) THEN
        answers := answers || 'unauthorized'::text;
      ELSE
        IF found_status = from_statuses[i] THEN
          UPDATE orders SET status = to_statuses[i], updated_at = at WHERE id = order_ids[i];
        END IF;
        answers := answers || found_status;
      END IF;
    END LOOP;
    PERFORM end_within_budget(budget_ms);
    RETURN answers;
  END $$;
`;
