// The endpoints' events as the servers deliver them (webhookStore.ts's EventDeliveryStore): each claim and
// each settlement a write of the group commit (groupCommit.ts), which the file's one writer serializes, so
// two processes never hold one endpoint. Here xact is always 0: seq alone is the commit order.
import type Database from 'better-sqlite3';
import type { EventDeliveryRepository } from '../backend.js';
import { type ClaimableRow, claimedEndpointOf, type HeadEventRow } from '../webhookRows.js';
import type { EndpointClaim, EventSettlement } from '../webhookStore.js';
import type { Connection } from './connection.js';

const HEAD_COLUMNS = `e.seq, e.xact, e.id, e.type, e.data, e.message, e.created_at, e.traceparent`;
/** Of the endpoint `w`'s types, and of its account or of none. */
const FOR_ENDPOINT = `instr(' ' || w.events || ' ', ' ' || e.type || ' ') > 0 AND (e.account_id IS NULL OR e.account_id = w.account_id)`;

export class EventDelivery implements EventDeliveryRepository {
  readonly #connection: Connection;
  readonly #statements: ReturnType<typeof statementsOf> & ReturnType<typeof settlementStatements>;

  constructor(connection: Connection) {
    this.#connection = connection;
    this.#statements = { ...statementsOf(connection.db), ...settlementStatements(connection.db) };
  }

  claimEndpoints({ owner, now, leaseUntil, limit }: EndpointClaim) {
    const { claimable, replayHead, nextHead, lease } = this.#statements;
    return this.#connection.groupCommit.run(() =>
      claimable.all({ now, limit }).flatMap((row) => {
        // There is one: the claim's own transaction found it.
        const head = replayHead.get(row.seq) ?? nextHead.get(row);
        if (head === undefined) return [];
        lease.run(owner, leaseUntil, row.seq);
        return [claimedEndpointOf({ ...row, attempts: row.attempts + 1 }, head, now)];
      }),
    );
  }

  settleEndpoint(owner: string, settlement: EventSettlement) {
    const { held, insertAttempt, passReplay, passEvent, settle } = this.#statements;
    const { endpointSeq, event, attempt } = settlement;
    return this.#connection.groupCommit.run(() => {
      if (held.get(endpointSeq, owner) === undefined) return;
      if (attempt) {
        insertAttempt.run({
          endpoint_seq: endpointSeq,
          event_id: attempt.eventId,
          event_type: attempt.eventType,
          attempt: attempt.attempt,
          outcome: attempt.outcome,
          status_code: attempt.statusCode ?? null,
          error: attempt.error ?? null,
          attempted_at: attempt.attemptedAt,
        });
      }
      if (settlement.passed && event.replayedAt !== undefined) passReplay.run(endpointSeq, event.seq);
      else if (settlement.passed) passEvent.run({ seq: endpointSeq, xact: Number(event.xact), event_seq: event.seq });
      settle.run({
        seq: endpointSeq,
        passed: settlement.passed ? 1 : 0,
        due_at: settlement.dueAt ?? null,
        failing_since: settlement.failingSince,
        disable: settlement.disable ?? null,
        at: attempt?.attemptedAt ?? null,
      });
    });
  }

  countEndpointsByStatus() {
    return this.#statements.endpointsByStatus.get() as { enabled: number; disabled: number };
  }

  pendingEvents() {
    const { count, oldest } = this.#statements.pending.get() as { count: number; oldest: string | null };
    return oldest === null ? { count } : { count, oldestAt: oldest };
  }

  deleteEventsBefore(before: string, limit: number) {
    const { oldEvents, deleteEvent, deleteReplaysOf, oldAttempts } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      const events = oldEvents.all(before, limit) as number[];
      for (const seq of events) {
        deleteReplaysOf.run(seq);
        deleteEvent.run(seq);
      }
      return events.length + oldAttempts.run(before, limit).changes;
    });
  }
}

/** The claims, the counts and the retention. */
function statementsOf(db: Database.Database) {
  return {
    claimable: db.prepare<[{ now: string; limit: number }], ClaimableRow>(
      `SELECT seq, id, url, account_id, events, sent_xact, sent_seq, secret, previous_secret, previous_secret_expires_at,
         attempts, failing_since
       FROM webhook_endpoints w
       WHERE status = 'enabled' AND (lease_until IS NULL OR lease_until <= :now) AND (due_at IS NULL OR due_at <= :now)
         AND (EXISTS (SELECT 1 FROM webhook_replays r JOIN events e ON e.seq = r.event_seq WHERE r.endpoint_seq = w.seq)
           OR EXISTS (SELECT 1 FROM events e WHERE (e.xact, e.seq) > (w.sent_xact, w.sent_seq) AND ${FOR_ENDPOINT}))
       ORDER BY seq LIMIT :limit`,
    ),
    replayHead: db.prepare<[number], HeadEventRow>(
      `SELECT ${HEAD_COLUMNS}, r.queued_at FROM webhook_replays r JOIN events e ON e.seq = r.event_seq
       WHERE r.endpoint_seq = ? ORDER BY e.xact, e.seq LIMIT 1`,
    ),
    nextHead: db.prepare<[ClaimableRow], HeadEventRow>(
      `SELECT ${HEAD_COLUMNS}, NULL AS queued_at FROM events e, (SELECT :events AS events, :account_id AS account_id) w
       WHERE (e.xact, e.seq) > (:sent_xact, :sent_seq) AND ${FOR_ENDPOINT}
       ORDER BY e.xact, e.seq LIMIT 1`,
    ),
    lease: db.prepare<[string, string, number]>(
      `UPDATE webhook_endpoints SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 WHERE seq = ?`,
    ),
    endpointsByStatus: db.prepare(
      `SELECT (SELECT count(*) FROM webhook_endpoints WHERE status = 'enabled') AS enabled,
         (SELECT count(*) FROM webhook_endpoints WHERE status = 'disabled') AS disabled`,
    ),
    // One row per endpoint and event still to send to it: after its position, or queued by a replay.
    pending: db.prepare(
      `SELECT count(*) AS count, min(created_at) AS oldest FROM (
         SELECT e.created_at FROM webhook_endpoints w JOIN events e
           ON (e.xact, e.seq) > (w.sent_xact, w.sent_seq) AND ${FOR_ENDPOINT}
         WHERE w.status = 'enabled'
         UNION ALL
         SELECT e.created_at FROM webhook_replays r JOIN events e ON e.seq = r.event_seq
           JOIN webhook_endpoints w ON w.seq = r.endpoint_seq
         WHERE w.status = 'enabled'
       )`,
    ),
    oldEvents: db.prepare<[string, number]>(`SELECT seq FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?`).pluck(),
    deleteReplaysOf: db.prepare<[number]>(`DELETE FROM webhook_replays WHERE event_seq = ?`),
    deleteEvent: db.prepare<[number]>(`DELETE FROM events WHERE seq = ?`),
    oldAttempts: db.prepare<[string, number]>(
      `DELETE FROM webhook_attempts WHERE seq IN (SELECT seq FROM webhook_attempts WHERE attempted_at < ? LIMIT ?)`,
    ),
  };
}

/** What a settlement writes, while its claim still holds the endpoint. */
function settlementStatements(db: Database.Database) {
  return {
    held: db.prepare<[number, string]>(`SELECT 1 FROM webhook_endpoints WHERE seq = ? AND lease_owner = ?`).pluck(),
    insertAttempt: db.prepare<[Record<string, unknown>]>(
      `INSERT INTO webhook_attempts (endpoint_seq, event_id, event_type, attempt, outcome, status_code, error, attempted_at)
       VALUES (:endpoint_seq, :event_id, :event_type, :attempt, :outcome, :status_code, :error, :attempted_at)`,
    ),
    passReplay: db.prepare<[number, number]>(`DELETE FROM webhook_replays WHERE endpoint_seq = ? AND event_seq = ?`),
    passEvent: db.prepare<[{ seq: number; xact: number; event_seq: number }]>(
      `UPDATE webhook_endpoints SET sent_xact = :xact, sent_seq = :event_seq
       WHERE seq = :seq AND (sent_xact, sent_seq) < (:xact, :event_seq)`,
    ),
    settle: db.prepare<[Record<string, unknown>]>(
      `UPDATE webhook_endpoints SET
         attempts = CASE WHEN :passed THEN 0 ELSE attempts END,
         due_at = :due_at,
         failing_since = :failing_since,
         status = CASE WHEN :disable IS NULL THEN status ELSE 'disabled' END,
         disabled_reason = coalesce(:disable, disabled_reason),
         updated_at = CASE WHEN :disable IS NULL THEN updated_at ELSE coalesce(:at, updated_at) END,
         lease_owner = NULL,
         lease_until = NULL
       WHERE seq = :seq`,
    ),
  };
}
