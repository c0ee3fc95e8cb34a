// PostgreSQL migration 4: a message's body as its UTF-8 bytes.
// Shipped: never edit it; a change is a new migration.
export const messageBytes = `
  -- 4: a message is any string the contract allows, U+0000 included, which text cannot hold: the body is
  -- kept as its UTF-8 bytes (the store encodes and decodes them), as SQLite keeps it. The function that
  -- writes a message with its Idempotency-Key takes the bytes too. The stored answer it replays stays text:
  -- it is JSON, where U+0000 is written as an escape.
  ALTER TABLE messages ALTER COLUMN body TYPE bytea USING convert_to(body, 'UTF8');
  DROP FUNCTION enqueue_message_once(bigint, text, bytea, text, text, text, text, text);
  CREATE FUNCTION enqueue_message_once(
    p_account_id bigint, p_key text, p_fingerprint bytea, p_oldest_kept text,
    p_id text, p_body bytea, p_created_at text, p_answer text
  ) RETURNS TABLE (outcome text, status integer, body text)
  LANGUAGE plpgsql SET lock_timeout = '5s' AS $$
  DECLARE
    earlier idempotency_keys%ROWTYPE;
  BEGIN
    DELETE FROM idempotency_keys k
      WHERE k.account_id = p_account_id AND k.key = p_key AND k.created_at < p_oldest_kept;
    INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
      VALUES (p_account_id, p_key, p_fingerprint, 202, p_answer, p_created_at)
      ON CONFLICT DO NOTHING;
    IF FOUND THEN
      INSERT INTO messages (id, account_id, body, status, created_at)
        VALUES (p_id, p_account_id, p_body, 'queued', p_created_at);
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
