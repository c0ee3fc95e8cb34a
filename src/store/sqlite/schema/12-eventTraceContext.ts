// SQLite migration 12: an event keeps the trace context of the change it reports.
// Shipped: never edit it; a change is a new migration.
//
// The W3C traceparent of the request that last moved an order (a cancel; NULL for the operator's moves,
// and for every order moved before), and of the change an event reports, copied by the triggers from the
// order or the message, so that the event's delivery attempts are spans of that trace. SQLite cannot
// change a trigger: migration 10's are made again, with the one column more.
export const eventTraceContext = `
  ALTER TABLE orders ADD COLUMN traceparent TEXT;
  ALTER TABLE events ADD COLUMN traceparent TEXT;
  DROP TRIGGER order_event;
  DROP TRIGGER message_event;
  CREATE TRIGGER order_event AFTER UPDATE OF status ON orders
  WHEN OLD.status <> NEW.status AND (
    (NEW.status = 'cancelled' AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE instr(events, 'order.cancelled') > 0))
    OR (NEW.status = 'shipped' AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE instr(events, 'order.shipped') > 0))
  ) BEGIN
    INSERT INTO events (id, type, account_id, data, created_at, traceparent) VALUES (
      'evt_' || lower(hex(randomblob(11))),
      'order.' || NEW.status,
      NULL,
      json_patch('{}', json_object(
        'id', NEW.id, 'petId', NEW.pet_id, 'quantity', NEW.quantity, 'shipDate', NEW.ship_date,
        'complete', json(CASE NEW.complete WHEN 1 THEN 'true' WHEN 0 THEN 'false' END), 'status', NEW.status)),
      NEW.updated_at,
      NEW.traceparent);
  END;
  CREATE TRIGGER message_event AFTER UPDATE OF status ON messages
  WHEN NEW.status IN ('delivered', 'failed') AND OLD.status <> NEW.status
    AND EXISTS (SELECT 1 FROM webhook_endpoints
      WHERE account_id = NEW.account_id AND instr(events, 'message.' || NEW.status) > 0) BEGIN
    INSERT INTO events (id, type, account_id, data, message, created_at, traceparent) VALUES (
      'evt_' || lower(hex(randomblob(11))),
      'message.' || NEW.status,
      NEW.account_id,
      json_object('id', NEW.id, 'status', NEW.status, 'createdAt', NEW.created_at,
        'updatedAt', coalesce(NEW.updated_at, NEW.created_at)),
      NEW.body,
      coalesce(NEW.updated_at, NEW.created_at),
      NEW.traceparent);
  END;
`;
