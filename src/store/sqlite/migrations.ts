// Versioned schema: migration N brings `PRAGMA user_version` from N-1 to N. Append only; never edit a shipped one.
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
  // 10: the accounts' own webhook endpoints (API v2) and the events they receive (docs/design.md, "Events
  // for clients"). An event is written by a trigger on the change it reports, in that change's
  // transaction, with its `data` as v2 answers the order or message then (json_patch drops the fields the
  // store has no value for, as the API leaves them out), a message's text beside it in `message` (as the
  // messages keep it: PostgreSQL's JSON cannot hold U+0000, which a message may); ids are 22 random hex
  // digits. Order events belong
  // to no account (every key lists every order). Events are sent in (xact, seq) order: here, one writer,
  // xact is 0 and seq the commit order; PostgreSQL's xact is the writing transaction's id (its migration
  // 15 says why), kept here too so that `store-orders copy` carries the same columns both ways. An endpoint
  // keeps how far its events were sent (sent_xact, sent_seq) and the claim and retries of the next one;
  // `webhook_replays` queues the events a client asked to have again. Attempts are kept as long as events.
  `
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL CHECK (type IN ('order.cancelled', 'order.shipped', 'message.delivered', 'message.failed')),
    account_id INTEGER REFERENCES accounts (id),
    data TEXT NOT NULL,
    message TEXT,
    created_at TEXT NOT NULL,
    xact INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX events_by_time ON events (created_at);
  CREATE INDEX events_in_order ON events (xact, seq);
  CREATE TRIGGER order_event AFTER UPDATE OF status ON orders
  WHEN NEW.status IN ('cancelled', 'shipped') AND OLD.status <> NEW.status BEGIN
    INSERT INTO events (id, type, account_id, data, created_at) VALUES (
      'evt_' || lower(hex(randomblob(11))),
      'order.' || NEW.status,
      NULL,
      json_patch('{}', json_object(
        'id', NEW.id, 'petId', NEW.pet_id, 'quantity', NEW.quantity, 'shipDate', NEW.ship_date,
        'complete', json(CASE NEW.complete WHEN 1 THEN 'true' WHEN 0 THEN 'false' END), 'status', NEW.status)),
      NEW.updated_at);
  END;
  CREATE TRIGGER message_event AFTER UPDATE OF status ON messages
  WHEN NEW.status IN ('delivered', 'failed') AND OLD.status <> NEW.status BEGIN
    INSERT INTO events (id, type, account_id, data, message, created_at) VALUES (
      'evt_' || lower(hex(randomblob(11))),
      'message.' || NEW.status,
      NEW.account_id,
      json_object('id', NEW.id, 'status', NEW.status, 'createdAt', NEW.created_at,
        'updatedAt', coalesce(NEW.updated_at, NEW.created_at)),
      NEW.body,
      coalesce(NEW.updated_at, NEW.created_at));
  END;

  CREATE TABLE webhook_endpoints (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    events TEXT NOT NULL,
    description TEXT CHECK (length(description) BETWEEN 1 AND 500),
    status TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
    disabled_reason TEXT CHECK (disabled_reason IN ('gone', 'failing', 'client')),
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expires_at TEXT,
    sent_xact INTEGER NOT NULL DEFAULT 0,
    sent_seq INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    due_at TEXT,
    lease_owner TEXT,
    lease_until TEXT,
    failing_since TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
  );
  CREATE INDEX webhook_endpoints_of_account ON webhook_endpoints (account_id, seq);
  CREATE INDEX enabled_webhook_endpoints ON webhook_endpoints (seq) WHERE status = 'enabled';

  CREATE TABLE webhook_replays (
    endpoint_seq INTEGER NOT NULL REFERENCES webhook_endpoints (seq) ON DELETE CASCADE,
    event_seq INTEGER NOT NULL,
    queued_at TEXT NOT NULL,
    PRIMARY KEY (endpoint_seq, event_seq)
  ) WITHOUT ROWID;
  CREATE INDEX replays_of_events ON webhook_replays (event_seq);

  CREATE TABLE webhook_attempts (
    seq INTEGER PRIMARY KEY,
    endpoint_seq INTEGER NOT NULL REFERENCES webhook_endpoints (seq) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed')),
    status_code INTEGER,
    error TEXT,
    attempted_at TEXT NOT NULL
  );
  CREATE INDEX webhook_attempts_of_endpoint ON webhook_attempts (endpoint_seq, seq);
  CREATE INDEX webhook_attempts_by_time ON webhook_attempts (attempted_at);
  CREATE INDEX delivered_events ON webhook_attempts (endpoint_seq, event_id) WHERE outcome = 'delivered';
  `,
];
