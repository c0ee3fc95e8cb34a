// Versioned schema: migration N brings `PRAGMA user_version` from N-1 to N. Append only; never edit a shipped one.
import { webhookEndpoints } from './schema/10-webhookEndpoints.js';
import { eventTraceContext } from './schema/12-eventTraceContext.js';

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    created_at TEXT NOT NULL
  );

  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    digest BLOB NOT NULL UNIQUE CHECK (length(digest) = 32),
    display_prefix TEXT NOT NULL CHECK (length(display_prefix) <= 8),
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );

  CREATE TABLE orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pet_id INTEGER CHECK (pet_id >= 1),
    quantity INTEGER CHECK (quantity BETWEEN 1 AND 2147483647),
    ship_date TEXT,
    complete INTEGER CHECK (complete IN (0, 1)),
    status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'cancelled')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued')),
    created_at TEXT NOT NULL
  );

  CREATE TABLE pets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL CHECK (length(name) >= 1),
    created_at TEXT NOT NULL
  );
  `,
  // 2: Idempotency-Key on sendMessage. The first answer is kept as sent, so a retry replays it exactly.
  `
  CREATE TABLE idempotency_keys (
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    key TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
  `,
  // 3: deprecated calls per account, written in batches by telemetry/deprecatedCalls.ts; and indexes that
  // keep the metrics' counts by status off a full table scan, which grows with every order ever taken.
  `
  CREATE TABLE deprecated_calls (
    operation_id TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    first_call_at TEXT NOT NULL,
    last_call_at TEXT NOT NULL,
    call_count INTEGER NOT NULL CHECK (call_count >= 1),
    PRIMARY KEY (operation_id, account_id)
  ) WITHOUT ROWID;

  CREATE INDEX orders_by_status ON orders (status);
  CREATE INDEX queued_messages ON messages (status) WHERE status = 'queued';
  `,
  // 4: the order list's version, kept by the database itself so that every process sharing the file
  // reads the same one, and a restart never repeats one. Triggers count every change to an order, whoever
  // makes it; the random id tells this database's versions from any other's.
  `
  CREATE TABLE order_list_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    database_id TEXT NOT NULL,
    changes INTEGER NOT NULL
  );
  INSERT INTO order_list_version (id, database_id, changes) VALUES (1, lower(hex(randomblob(8))), 0);
  CREATE TRIGGER order_added AFTER INSERT ON orders BEGIN
    UPDATE order_list_version SET changes = changes + 1;
  END;
  CREATE TRIGGER order_changed AFTER UPDATE ON orders BEGIN
    UPDATE order_list_version SET changes = changes + 1;
  END;
  CREATE TRIGGER order_removed AFTER DELETE ON orders BEGIN
    UPDATE order_list_version SET changes = changes + 1;
  END;
  `,
  // 5: pages of orders (API v2) read each status asked for by id (orders_by_status ends with the rowid,
  // the id), or by pet, status and id when a pet is named (store/orderPages.ts).
  `
  CREATE INDEX orders_by_pet ON orders (pet_id, status);
  `,
  // 6: ship dates are compared as text, which orders instants in time only within years 0000 to 9999 in
  // UTC, the only ones RFC 3339 can write. Earlier versions stored any the CLI was given, such as
  // 9999-12-31T23:00:00-01:00 as +010000-01-01T00:00:00.000Z; each such date becomes the nearest instant
  // the store keeps, on the same side of every other, and no other can be stored from now on.
  `
  UPDATE orders
  SET ship_date = CASE WHEN ship_date LIKE '-%' THEN '0000-01-01T00:00:00.000Z' ELSE '9999-12-31T23:59:59.999Z' END,
    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  WHERE ship_date NOT GLOB '[0-9][0-9][0-9][0-9]-*';
  CREATE TRIGGER ship_date_added BEFORE INSERT ON orders
  WHEN NEW.ship_date NOT GLOB '[0-9][0-9][0-9][0-9]-*' BEGIN
    SELECT RAISE(ABORT, 'ship_date must be an instant from 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z');
  END;
  CREATE TRIGGER ship_date_changed BEFORE UPDATE OF ship_date ON orders
  WHEN NEW.ship_date NOT GLOB '[0-9][0-9][0-9][0-9]-*' BEGIN
    SELECT RAISE(ABORT, 'ship_date must be an instant from 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z');
  END;
  `,
  // 7: messages are delivered (delivery/): a message is queued, delivered or failed, with when its status
  // was last set (null: never since it was accepted), its attempts, when it is due again or its claim's
  // lease ends, who holds that claim, and its last attempt's error. SQLite cannot change a CHECK, so the
  // table is built again with the rows as they were; nothing refers to it. The new columns' defaults keep
  // the statement that queues a message as it was. Indexes: see store/messageQueue.ts.
  `
  CREATE TABLE messages_delivered (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'failed')),
    created_at TEXT NOT NULL,
    updated_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    due_at TEXT,
    lease_owner TEXT,
    last_error TEXT
  );
  INSERT INTO messages_delivered (seq, id, account_id, body, status, created_at)
    SELECT seq, id, account_id, body, status, created_at FROM messages;
  DROP TABLE messages;
  ALTER TABLE messages_delivered RENAME TO messages;
  CREATE INDEX queued_messages ON messages (status) WHERE status = 'queued';
  CREATE INDEX fresh_messages ON messages (seq) WHERE status = 'queued' AND due_at IS NULL;
  CREATE INDEX due_messages ON messages (due_at) WHERE status = 'queued' AND due_at IS NOT NULL;
  CREATE INDEX leased_messages ON messages (account_id, seq) WHERE status = 'queued' AND lease_owner IS NOT NULL;
  CREATE INDEX delivered_messages ON messages (updated_at) WHERE status = 'delivered';
  CREATE INDEX failed_messages ON messages (updated_at) WHERE status = 'failed';
  `,
  // 8: a key's scopes (store/vocabulary.ts): NULL for every scope there is and will be, as every key made
  // before has; else its scopes separated by spaces, as OAuth writes a scope (RFC 6749 §3.3), and '' for
  // none. They never change once the key is made.
  `
  ALTER TABLE api_keys ADD COLUMN scopes TEXT;
  `,
  // 9: when a key expires (NULL: never), from when on it is refused as a revoked one is; and when a server
  // last noted its use (coarsely: http/keyUses.ts). Times as every other: ISO 8601 in UTC, to the
  // millisecond, which compare as text.
  `
  ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
  ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
  `,
  webhookEndpoints,
  // 11: the W3C `traceparent` of the request that sent a message (NULL: none, as for every message sent
  // before), so that its delivery attempts are spans of that request's trace.
  `
  ALTER TABLE messages ADD COLUMN traceparent TEXT;
  `,
  eventTraceContext,
];
