// PostgreSQL migration 16: a message keeps the trace context of the request that sent it.
// Shipped: never edit it; a change is a new migration.
export const traceContext = `
  -- 16: as SQLite's migration 11: the W3C traceparent of the request that sent a message (NULL: none, as
  -- for every message sent before), so that its delivery attempts are spans of that request's trace. The
  -- writes that queue a message take it as one more argument: new overloads of migration 14's, which stay
  -- for servers of earlier releases during an upgrade.
  ALTER TABLE messages ADD COLUMN traceparent text;

  CREATE PROCEDURE queue_message_checked(
    p_key bytea, p_id text, p_body bytea, p_created_at text, p_traceparent text, budget_ms integer
  ) LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO messages (id, account_id, body, status, created_at, traceparent)
      SELECT p_id, k.account_id, p_body, 'queued', p_created_at, p_traceparent FROM api_keys k
      WHERE k.digest = p_key AND key_row_is_active(k);
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the key is not active; nothing is written' USING ERRCODE = 'SO401';
    END IF;
    PERFORM end_within_budget(budget_ms);
  END $$;

  CREATE FUNCTION queue_messages_checked(
    p_keys bytea[], p_ids text[], p_bodies bytea[], p_created_at text[], p_traceparents text[], budget_ms integer
  ) RETURNS text[] LANGUAGE plpgsql AS $$
  DECLARE
    written text[];
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    WITH inserted AS (
      INSERT INTO messages (id, account_id, body, status, created_at, traceparent)
        SELECT m.id, k.account_id, m.body, 'queued', m.created_at, m.traceparent
        FROM unnest(p_keys, p_ids, p_bodies, p_created_at, p_traceparents)
          WITH ORDINALITY AS m (key, id, body, created_at, traceparent, n)
        JOIN api_keys k ON k.digest = m.key AND key_row_is_active(k)
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

  CREATE FUNCTION enqueue_message_once_for_key(
    p_key bytea, p_idempotency_key text, p_fingerprint bytea, p_oldest_kept text,
    p_id text, p_body bytea, p_created_at text, p_traceparent text, p_answer text, budget_ms integer
  ) RETURNS TABLE (outcome text, status integer, body text)
  LANGUAGE plpgsql AS $$
  DECLARE
    v_account_id bigint;
    v_claimed boolean;
    earlier idempotency_keys%ROWTYPE;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    SELECT k.account_id INTO v_account_id FROM api_keys k WHERE k.digest = p_key AND key_row_is_active(k);
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
      INSERT INTO messages (id, account_id, body, status, created_at, traceparent)
        VALUES (p_id, v_account_id, p_body, 'queued', p_created_at, p_traceparent);
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
