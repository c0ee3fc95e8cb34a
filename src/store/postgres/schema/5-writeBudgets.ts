// PostgreSQL migration 5: a budget for every write, checked inside its own transaction.
// Shipped: never edit it; a change is a new migration.
export const writeBudgets = `
  -- 5: a write gives up before its client does. A row lock may be waited for twice (its tuple, then its
  -- holder), each wait bounded by lock_timeout alone, so a write could outlast the server's own bound
  -- (DATABASE_QUERY_TIMEOUT_MS); the server then answered 503 and dropped the connection while the backend
  -- went on waiting, took the lock and committed. Each write now gets a budget below that bound (NULL:
  -- none, the CLI's), waits for any one lock at most half of it, and checks it once every lock is taken,
  -- last before its commit: past it, it raises query_canceled and nothing is written. The functions of
  -- migrations 1 and 4 stay for servers of earlier releases during an upgrade.
  CREATE FUNCTION bound_lock_waits(budget_ms integer) RETURNS void LANGUAGE sql AS $$
    SELECT set_config('lock_timeout', CASE WHEN budget_ms IS NULL THEN '5s' ELSE greatest(budget_ms / 2, 1) || 'ms' END, true)
  $$;

  CREATE FUNCTION end_within_budget(budget_ms integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF clock_timestamp() > statement_timestamp() + budget_ms * interval '1 millisecond' THEN
      RAISE EXCEPTION 'the write outlasted its budget of % ms; nothing of it is written', budget_ms
        USING ERRCODE = 'query_canceled';
    END IF;
  END $$;

  CREATE FUNCTION move_order(order_id bigint, from_status text, to_status text, at text, budget_ms integer)
  RETURNS text LANGUAGE plpgsql AS $$
  DECLARE
    found_status text;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    SELECT status INTO found_status FROM orders WHERE id = order_id FOR UPDATE;
    IF found_status = from_status THEN
      UPDATE orders SET status = to_status, updated_at = at WHERE id = order_id;
    END IF;
    PERFORM end_within_budget(budget_ms);
    RETURN found_status;
  END $$;

  -- A message without an Idempotency-Key: its account's row is locked (FOR KEY SHARE) by the foreign key.
  CREATE FUNCTION enqueue_message(
    p_account_id bigint, p_id text, p_body bytea, p_created_at text, budget_ms integer
  ) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO messages (id, account_id, body, status, created_at)
      VALUES (p_id, p_account_id, p_body, 'queued', p_created_at);
    PERFORM end_within_budget(budget_ms);
  END $$;

  CREATE FUNCTION enqueue_message_once(
    p_account_id bigint, p_key text, p_fingerprint bytea, p_oldest_kept text,
    p_id text, p_body bytea, p_created_at text, p_answer text, budget_ms integer
  ) RETURNS TABLE (outcome text, status integer, body text)
  LANGUAGE plpgsql AS $$
  DECLARE
    earlier idempotency_keys%ROWTYPE;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    DELETE FROM idempotency_keys k
      WHERE k.account_id = p_account_id AND k.key = p_key AND k.created_at < p_oldest_kept;
    INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
      VALUES (p_account_id, p_key, p_fingerprint, 202, p_answer, p_created_at)
      ON CONFLICT DO NOTHING;
    IF FOUND THEN
      INSERT INTO messages (id, account_id, body, status, created_at)
        VALUES (p_id, p_account_id, p_body, 'queued', p_created_at);
      PERFORM end_within_budget(budget_ms);
      RETURN QUERY SELECT 'queued'::text, 202, p_answer;
      RETURN;
    END IF;
    SELECT * INTO earlier FROM idempotency_keys k WHERE k.account_id = p_account_id AND k.key = p_key;
    IF earlier.fingerprint <> p_fingerprint THEN
      RETURN QUERY SELECT 'key_reused'::text, NULL::integer, NULL::text;
      RETURN;
    END IF;
    RETURN QUERY SELECT 'replayed'::text, earlier.status, earlier.body;
  END $$;
`;
