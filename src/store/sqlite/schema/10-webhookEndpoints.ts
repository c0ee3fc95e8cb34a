// SQLite migration 10: the accounts' webhook endpoints and the events they receive.
// Shipped: never edit it; a change is a new migration.
//
// The accounts' own webhook endpoints (API v2) and the events they receive (docs/design.md, "Events for
// clients"). An event is written by a trigger on the change it reports, in that change's transaction, with
// its `data` as v2 answers the order or message then (json_patch drops the fields the store has no value
// for, as the API leaves them out), and a message's text beside it in `message`, as the messages keep it
// (PostgreSQL's JSON cannot hold U+0000, which a message may); ids are 22 random hex digits. Order events
// belong to no account: every key lists every order. An event that no endpoint subscribes to (enabled or
// not) is not written: no endpoint could ever be sent it, and a store without endpoints pays one index
// probe per change, not a row. Events are sent in (xact, seq) order: here, one
// writer, xact is 0 and seq the commit order; PostgreSQL's xact is the writing transaction's id (its
// migration 15 says why), kept here too so that `store-orders copy` carries the same columns both ways. An
// endpoint keeps how far its events were sent (sent_xact, sent_seq) and the claim and retries of the next
// one; `webhook_replays` queues the events a client asked to have again. Attempts are kept as long as events.
export const webhookEndpoints = `
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
  WHEN OLD.status <> NEW.status AND (
    (NEW.status = 'cancelled' AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE instr(events, 'order.cancelled') > 0))
    OR (NEW.status = 'shipped' AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE instr(events, 'order.shipped') > 0))
  ) BEGIN
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
  WHEN NEW.status IN ('delivered', 'failed') AND OLD.status <> NEW.status
    AND EXISTS (SELECT 1 FROM webhook_endpoints
      WHERE account_id = NEW.account_id AND instr(events, 'message.' || NEW.status) > 0) BEGIN
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
  -- What the order triggers ask on every cancel and ship: whether any endpoint subscribes, one probe.
  CREATE INDEX order_cancelled_subscribers ON webhook_endpoints (seq) WHERE instr(events, 'order.cancelled') > 0;
  CREATE INDEX order_shipped_subscribers ON webhook_endpoints (seq) WHERE instr(events, 'order.shipped') > 0;

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
  `;
