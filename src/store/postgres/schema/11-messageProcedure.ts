// PostgreSQL migration 11: a message without an Idempotency-Key is queued by a procedure.
// Shipped: never edit it; a change is a new migration.
export const messageProcedure = `
  -- 11: enqueue_message_for_key (migration 8) again, as a procedure. CALL answers no row, so PostgreSQL
  -- plans no query around the call and describes no row, and the driver parses none: each message costs
  -- PostgreSQL and the server less (docs/performance.md). A key that is not active raises SO401, with
  -- nothing written. The function stays for servers of earlier releases during an upgrade.
  CREATE PROCEDURE queue_message_checked(
    p_key bytea, p_id text, p_body bytea, p_created_at text, budget_ms integer
  ) LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO messages (id, account_id, body, status, created_at)
      SELECT p_id, k.account_id, p_body, 'queued', p_created_at FROM api_keys k
      WHERE k.digest = p_key AND k.revoked_at IS NULL;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the key is not active; nothing is written' USING ERRCODE = 'SO401';
    END IF;
    PERFORM end_within_budget(budget_ms);
  END $$;
`;
