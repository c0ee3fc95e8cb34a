// PostgreSQL migration 14: keys that expire, and their last use.
// Shipped: never edit it; a change is a new migration.
export const keyExpiry = `
  -- 14: when a key expires (NULL: never), from when on it is refused exactly as a revoked one is; and when a
  -- server last noted its use (coarsely: http/keyUses.ts). Times as every other: ISO 8601 text in UTC.
  ALTER TABLE api_keys ADD COLUMN expires_at text;
  ALTER TABLE api_keys ADD COLUMN last_used_at text;

  -- What "the key is active" means, said once: every check of a key calls this, directly on the key's row
  -- or through key_is_active (the checks of migrations 8, 10, 11 and 12 spelled it out, as revoked_at IS
  -- NULL, in six places). An expiry is compared with the database's clock, the one clock every server
  -- shares. A SQL function of one expression: the planner inlines it where it is called. (Not an overload
  -- of key_is_active: a call with a parameter of no declared type, as the servers make, would not know
  -- which to take.)
  CREATE FUNCTION key_row_is_active(k api_keys) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at::timestamptz > statement_timestamp())
  $$;

  CREATE OR REPLACE FUNCTION key_is_active(p_key bytea) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
  BEGIN
    RETURN EXISTS (SELECT 1 FROM api_keys k WHERE k.digest = p_key AND key_row_is_active(k));
  END $$;

  -- Migration 8's, kept for servers of earlier releases during an upgrade: the same, with the one check.
  CREATE OR REPLACE FUNCTION enqueue_message_for_key(
    p_key bytea, p_id text, p_body bytea, p_created_at text, budget_ms integer
  ) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO messages (id, account_id, body, status, created_at)
      SELECT p_id, k.account_id, p_body, 'queued', p_created_at FROM api_keys k
      WHERE k.digest = p_key AND key_row_is_active(k);
    IF NOT FOUND THEN
      RETURN false;
    END IF;
    PERFORM end_within_budget(budget_ms);
    RETURN true;
  END $$;

  -- Migration 8's, with the one check.
  CREATE OR REPLACE FUNCTION enqueue_message_once_for_key(
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

  -- Migration 11's, with the one check.
  CREATE OR REPLACE PROCEDURE queue_message_checked(
    p_key bytea, p_id text, p_body bytea, p_created_at text, budget_ms integer
  ) LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    INSERT INTO messages (id, account_id, body, status, created_at)
      SELECT p_id, k.account_id, p_body, 'queued', p_created_at FROM api_keys k
      WHERE k.digest = p_key AND key_row_is_active(k);
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the key is not active; nothing is written' USING ERRCODE = 'SO401';
    END IF;
    PERFORM end_within_budget(budget_ms);
  END $$;

  -- Migration 12's, with the one check.
  CREATE OR REPLACE FUNCTION queue_messages_checked(
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
`;
