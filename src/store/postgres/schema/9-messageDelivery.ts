// PostgreSQL migration 9: messages are delivered.
// Shipped: never edit it; a change is a new migration.
export const messageDelivery = `
  -- 9: messages are delivered (delivery/): a message is queued, delivered or failed, with when its status
  -- was last set (null: never since it was accepted), its attempts, when it is due again or its claim's
  -- lease ends, who holds that claim, and its last attempt's error, as in SQLite (its migration 7). The new
  -- columns' defaults keep enqueue_message_for_key and enqueue_message_once_for_key as they were; adding
  -- them rewrites nothing. The CHECK is checked against every row, under this migration's lock.
  -- queued_messages is made again by seq, so that the oldest queued message is its first entry. The
  -- other indexes: see store/messageQueue.ts.
  ALTER TABLE messages DROP CONSTRAINT messages_status_check;
  ALTER TABLE messages ADD CONSTRAINT messages_status_check CHECK (status IN ('queued', 'delivered', 'failed'));
  ALTER TABLE messages
    ADD COLUMN updated_at text,
    ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    ADD COLUMN due_at text,
    ADD COLUMN lease_owner text,
    ADD COLUMN last_error text;
  DROP INDEX queued_messages;
  CREATE INDEX queued_messages ON messages (seq) WHERE status = 'queued';
  CREATE INDEX fresh_messages ON messages (seq) WHERE status = 'queued' AND due_at IS NULL;
  CREATE INDEX due_messages ON messages (due_at) WHERE status = 'queued' AND due_at IS NOT NULL;
  CREATE INDEX leased_messages ON messages (account_id, seq) WHERE status = 'queued' AND lease_owner IS NOT NULL;
  CREATE INDEX delivered_messages ON messages (updated_at) WHERE status = 'delivered';
  CREATE INDEX failed_messages ON messages (updated_at) WHERE status = 'failed';
`;
