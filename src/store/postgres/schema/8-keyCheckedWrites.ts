// PostgreSQL migration 8: the API's writes check the caller's key themselves.
// Shipped: never edit it; a change is a new migration.
export const keyCheckedWrites = `
  -- 8: each write of the API checks the caller's key (its digest) in its own function, so a request is one
  -- statement where it was two (the key's lookup, then the write), and no write slips in between a
  -- revocation and its check: the key is read after every lock the write waits for, by a statement whose
  -- snapshot is taken then. A key that is not active answers 'unauthorized' and writes nothing. A NULL key
  -- is the operator's (the CLI's), checked by nobody. The functions of migration 5 stay for servers of
  -- earlier releases during an upgrade.
  CREATE FUNCTION key_is_active(p_key bytea) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM api_keys WHERE digest = p_key AND revoked_at IS NULL)
  $$;

  CREATE FUNCTION move_order_for_key(
    p_key bytea, order_id bigint, from_status text, to_status text, at text, budget_ms integer
  ) RETURNS text LANGUAGE plpgsql AS $$
  DECLARE
    found_status text;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    SELECT status INTO found_status FROM orders WHERE id = order_id FOR UPDATE;
    IF p_key IS NOT NULL AND NOT key_is_active(p_key) THEN
      RETURN 'unauthorized';
    END IF;
    IF found_status = from_status THEN
      UPDATE orders SET status = to_status, updated_at = at WHERE id = order_id;
    END IF;
    PERFORM end_within_budget(budget_ms);
    RETURN found_status;
  END $$;

  -- The account is the key's own.
  CREATE FUNCTION enqueue_message_for_key(
    p_key bytea, p_id text, p_body bytea, p_created_at text, budget_ms integer
  ) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO messages (id, account_id, body, status, created_at)
      SELECT p_id, k.account_id, p_body, 'queued', p_created_at FROM api_keys k
      WHERE k.digest = p_key AND k.revoked_at IS NULL;
    IF NOT FOUND THEN
      RETURN false;
    END IF;
    PERFORM end_within_budget(budget_ms);
    RETURN true;
  END $$;

  -- As enqueue_message_once (migration 5), for the key's own account. The key's row of idempotency_keys
  -- may be waited for (another request under the same Idempotency-Key): the key is checked again after it.
  CREATE FUNCTION enqueue_message_once_for_key(
    p_key bytea, p_idempotency_key text, p_fingerprint bytea, p_oldest_kept text,
    p_id text, p_body bytea, p_created_at text, p_answer text, budget_ms integer
  ) RETURNS TABLE (outcome text, status integer, body text)
  LANGUAGE plpgsql AS $$
  DECLARE
    v_account_id bigint;
    v_claimed boolean;
    earlier idempotency_keys%ROWTYPE;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    SELECT k.account_id INTO v_account_id FROM api_keys k WHERE k.digest = p_key AND k.revoked_at IS NULL;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'unauthorized'::text, NULL::integer, NULL::text;
      RETURN;
    END IF;
    DELETE FROM idempotency_keys k
      WHERE k.account_id = v_account_id AND k.key = p_idempotency_key AND k.created_at < p_oldest_kept;
    INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
      VALUES (v_account_id, p_idempotency_key, p_fingerprint, 202, p_answer, p_created_at)
      ON CONFLICT DO NOTHING;
    v_claimed := FOUND;
    IF NOT key_is_active(p_key) THEN
      -- What this call wrote is undone in its own transaction: nothing of it is ever seen.
      IF v_claimed THEN
        DELETE FROM idempotency_keys k WHERE k.account_id = v_account_id AND k.key = p_idempotency_key;
      END IF;
      RETURN QUERY SELECT 'unauthorized'::text, NULL::integer, NULL::text;
      RETURN;
    END IF;
    IF v_claimed THEN
      INSERT INTO messages (id, account_id, body, status, created_at)
        VALUES (p_id, v_account_id, p_body, 'queued', p_created_at);
      PERFORM end_within_budget(budget_ms);
      RETURN QUERY SELECT 'queued'::text, 202, p_answer;
      RETURN;
    END IF;
    SELECT * INTO earlier FROM idempotency_keys k
      WHERE k.account_id = v_account_id AND k.key = p_idempotency_key;
    IF earlier.fingerprint <> p_fingerprint THEN
      RETURN QUERY SELECT 'key_reused'::text, NULL::integer, NULL::text;
      RETURN;
    END IF;
    RETURN QUERY SELECT 'replayed'::text, earlier.status, earlier.body;
  END $$;
`;
