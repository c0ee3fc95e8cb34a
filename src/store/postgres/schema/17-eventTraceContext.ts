// PostgreSQL migration 17: an event keeps the trace context of the change it reports.
// Shipped: never edit it; a change is a new migration.
export const eventTraceContext = `
  -- 17: as SQLite's migration 12: the W3C traceparent of the request that last moved an order (a cancel;
  -- NULL for the operator's moves, and for every order moved before), and of the change an event reports,
  -- copied by the triggers from the order or the message, so that the event's delivery attempts are spans
  -- of that trace. The API's moves take it as one more argument: new overloads of migrations 8's and 12's,
  -- which stay for servers of earlier releases during an upgrade (their moves keep no trace).
  ALTER TABLE orders ADD COLUMN traceparent text;
  ALTER TABLE events ADD COLUMN traceparent text;

  CREATE FUNCTION move_order_for_key(
    p_key bytea, order_id bigint, from_status text, to_status text, at text, p_traceparent text, budget_ms integer
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
      UPDATE orders SET status = to_status, updated_at = at, traceparent = p_traceparent WHERE id = order_id;
    END IF;
    PERFORM end_within_budget(budget_ms);
    RETURN found_status;
  END $$;

  CREATE FUNCTION move_orders_for_keys(
    p_keys bytea[], order_ids bigint[], from_statuses text[], to_statuses text[], p_traceparents text[], at text,
    budget_ms integer
  ) RETURNS text[] LANGUAGE plpgsql AS $$
  DECLARE
    answers text[] := '{}';
    found_status text;
  BEGIN
    PERFORM bound_lock_waits(budget_ms);
    FOR i IN 1 .. cardinality(order_ids) LOOP
      SELECT status INTO found_status FROM orders WHERE id = order_ids[i] FOR UPDATE SKIP LOCKED;
      IF NOT FOUND AND EXISTS (SELECT 1 FROM orders WHERE id = order_ids[i]) THEN
        answers := answers || 'busy'::text;
      ELSIF p_keys[i] IS NOT NULL AND NOT key_is_active(p_keys[i]) THEN
        answers := answers || 'unauthorized'::text;
      ELSE
        IF found_status = from_statuses[i] THEN
          UPDATE orders SET status = to_statuses[i], updated_at = at, traceparent = p_traceparents[i]
            WHERE id = order_ids[i];
        END IF;
        answers := answers || found_status;
      END IF;
    END LOOP;
    PERFORM end_within_budget(budget_ms);
    RETURN answers;
  END $$;

  CREATE OR REPLACE FUNCTION order_event() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- Each probe written out, so that its partial index serves it.
    IF NOT (CASE NEW.status
        WHEN 'cancelled' THEN EXISTS (SELECT 1 FROM webhook_endpoints WHERE position('order.cancelled' IN events) > 0)
        ELSE EXISTS (SELECT 1 FROM webhook_endpoints WHERE position('order.shipped' IN events) > 0)
      END) THEN
      RETURN NULL;
    END IF;
    INSERT INTO events (id, type, account_id, data, created_at, traceparent) VALUES (
      'evt_' || left(md5(gen_random_uuid()::text), 22),
      'order.' || NEW.status,
      NULL,
      json_strip_nulls(json_build_object('id', NEW.id, 'petId', NEW.pet_id, 'quantity', NEW.quantity,
        'shipDate', NEW.ship_date, 'complete', NEW.complete, 'status', NEW.status))::text,
      NEW.updated_at,
      NEW.traceparent);
    RETURN NULL;
  END
  $$;

  CREATE OR REPLACE FUNCTION message_event() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM webhook_endpoints
        WHERE account_id = NEW.account_id AND position('message.' || NEW.status IN events) > 0) THEN
      RETURN NULL;
    END IF;
    INSERT INTO events (id, type, account_id, data, message, created_at, traceparent) VALUES (
      'evt_' || left(md5(gen_random_uuid()::text), 22),
      'message.' || NEW.status,
      NEW.account_id,
      json_build_object('id', NEW.id, 'status', NEW.status, 'createdAt', NEW.created_at,
        'updatedAt', coalesce(NEW.updated_at, NEW.created_at))::text,
      NEW.body,
      coalesce(NEW.updated_at, NEW.created_at),
      NEW.traceparent);
    RETURN NULL;
  END
  $$;
`;
