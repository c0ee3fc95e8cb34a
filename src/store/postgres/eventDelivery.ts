// The endpoints' events as the servers deliver them (webhookStore.ts's EventDeliveryStore), any number of
// servers at once: a claim takes endpoints with SKIP LOCKED, so two never hold one, and reads only events of
// transactions older than the oldest still running (migration 15 says why), in (xact, seq) order.
import type { Pool } from 'pg';
import type { EventDeliveryRepository } from '../backend.js';
import { type ClaimableRow, claimedEndpointOf, type HeadEventRow } from '../webhookRows.js';
import type { EndpointClaim, EventSettlement } from '../webhookStore.js';
import { inTransaction } from './transaction.js';

/** Of the endpoint `w`'s types, and of its account or of none. */
const FOR_ENDPOINT = `position(' ' || e.type || ' ' IN ' ' || w.events || ' ') > 0
  AND (e.account_id IS NULL OR e.account_id = w.account_id)`;
/** Every event of a transaction older than this has ended: any still to come has an xact not below it. */
const HORIZON = `pg_snapshot_xmin(pg_current_snapshot())`;
const HEAD_COLUMNS = `e.seq::integer AS seq, e.xact::text AS xact, e.id, e.type, e.data, e.message, e.created_at, e.traceparent`;

export class EventDelivery implements EventDeliveryRepository {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** One statement claims; a second reads each claimed endpoint's next event (a replay's first). */
  async claimEndpoints({ owner, now, leaseUntil, limit }: EndpointClaim) {
    const { rows: claimed } = await this.#pool.query<ClaimableRow>(
      `WITH claimable AS (
         SELECT w.seq FROM webhook_endpoints w
         WHERE w.status = 'enabled' AND (w.lease_until IS NULL OR w.lease_until <= $1)
           AND (w.due_at IS NULL OR w.due_at <= $1)
           AND (EXISTS (SELECT 1 FROM webhook_replays r JOIN events e ON e.seq = r.event_seq WHERE r.endpoint_seq = w.seq)
             OR EXISTS (SELECT 1 FROM events e WHERE (e.xact, e.seq) > (w.sent_xact, w.sent_seq) AND e.xact < ${HORIZON}
               AND ${FOR_ENDPOINT}))
         ORDER BY w.seq LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_endpoints w SET lease_owner = $3, lease_until = $4, attempts = w.attempts + 1
       FROM claimable c WHERE w.seq = c.seq
       RETURNING w.seq::integer AS seq, w.id, w.url, w.account_id::integer AS account_id, w.events,
         w.sent_xact::text AS sent_xact, w.sent_seq::integer AS sent_seq, w.secret, w.previous_secret,
         w.previous_secret_expires_at, w.attempts, w.failing_since`,
      [now, limit, owner, leaseUntil],
    );
    if (claimed.length === 0) return [];
    const { rows: heads } = await this.#pool.query<HeadEventRow & { endpoint_seq: number }>(
      `SELECT c.endpoint_seq::integer AS endpoint_seq, h.* FROM unnest($1::bigint[]) AS c (endpoint_seq)
       CROSS JOIN LATERAL (
         SELECT * FROM (
           (SELECT ${HEAD_COLUMNS}, r.queued_at, 0 AS rank FROM webhook_replays r JOIN events e ON e.seq = r.event_seq
            WHERE r.endpoint_seq = c.endpoint_seq ORDER BY e.xact, e.seq LIMIT 1)
           UNION ALL
           (SELECT ${HEAD_COLUMNS}, NULL AS queued_at, 1 AS rank FROM events e, webhook_endpoints w
            WHERE w.seq = c.endpoint_seq AND (e.xact, e.seq) > (w.sent_xact, w.sent_seq) AND e.xact < ${HORIZON}
              AND ${FOR_ENDPOINT}
            ORDER BY e.xact, e.seq LIMIT 1)
         ) head ORDER BY rank LIMIT 1
       ) h`,
      [claimed.map(({ seq }) => seq)],
    );
    const headOf = new Map(heads.map((head) => [head.endpoint_seq, head]));
    return claimed.flatMap((row) => {
      const head = headOf.get(row.seq);
      // Claimed with an event to send, which only its own settlement takes away.
      return head ? [claimedEndpointOf(row, head, now)] : [];
    });
  }

  settleEndpoint(owner: string, settlement: EventSettlement) {
    const { endpointSeq, event, attempt, passed } = settlement;
    return inTransaction(this.#pool, async (client) => {
      const { rowCount } = await client.query(
        `SELECT 1 FROM webhook_endpoints WHERE seq = $1 AND lease_owner = $2 FOR UPDATE`,
        [endpointSeq, owner],
      );
      if (rowCount === 0) return;
      if (attempt) {
        await client.query(
          `INSERT INTO webhook_attempts (endpoint_seq, event_id, event_type, attempt, outcome, status_code, error, attempted_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [endpointSeq, attempt.eventId, attempt.eventType, attempt.attempt, attempt.outcome, attempt.statusCode ?? null, attempt.error ?? null, attempt.attemptedAt],
        );
      }
      if (passed && event.replayedAt !== undefined) {
        await client.query(`DELETE FROM webhook_replays WHERE endpoint_seq = $1 AND event_seq = $2`, [endpointSeq, event.seq]);
      } else if (passed) {
        await client.query(
          `UPDATE webhook_endpoints SET sent_xact = $2::xid8, sent_seq = $3
           WHERE seq = $1 AND (sent_xact, sent_seq) < ($2::xid8, $3)`,
          [endpointSeq, event.xact, event.seq],
        );
      }
      await client.query(
        `UPDATE webhook_endpoints SET
           attempts = CASE WHEN $2 THEN 0 ELSE attempts END,
           due_at = $3,
           failing_since = $4,
           status = CASE WHEN $5::text IS NULL THEN status ELSE 'disabled' END,
           disabled_reason = coalesce($5, disabled_reason),
           updated_at = CASE WHEN $5::text IS NULL THEN updated_at ELSE coalesce($6, updated_at) END,
           lease_owner = NULL,
           lease_until = NULL
         WHERE seq = $1`,
        [endpointSeq, passed, settlement.dueAt ?? null, settlement.failingSince, settlement.disable ?? null, attempt?.attemptedAt ?? null],
      );
    });
  }

  async countEndpointsByStatus() {
    const { rows } = await this.#pool.query<{ enabled: number; disabled: number }>(
      `SELECT count(*) FILTER (WHERE status = 'enabled')::integer AS enabled,
         count(*) FILTER (WHERE status = 'disabled')::integer AS disabled
       FROM webhook_endpoints`,
    );
    return rows[0] ?? { enabled: 0, disabled: 0 };
  }

  /** One row per endpoint and event still to send to it: after its position, or queued by a replay. */
  async pendingEvents() {
    const { rows } = await this.#pool.query<{ count: number; oldest: string | null }>(
      `SELECT count(*)::integer AS count, min(created_at) AS oldest FROM (
         SELECT e.created_at FROM webhook_endpoints w JOIN events e
           ON (e.xact, e.seq) > (w.sent_xact, w.sent_seq) AND ${FOR_ENDPOINT}
         WHERE w.status = 'enabled'
         UNION ALL
         SELECT e.created_at FROM webhook_replays r JOIN events e ON e.seq = r.event_seq
           JOIN webhook_endpoints w ON w.seq = r.endpoint_seq
         WHERE w.status = 'enabled'
       ) pending`,
    );
    const { count = 0, oldest = null } = rows[0] ?? {};
    return oldest === null ? { count } : { count, oldestAt: oldest };
  }

  async deleteEventsBefore(before: string, limit: number) {
    const { rows } = await this.#pool.query<{ deleted: number }>(
      `WITH old AS (SELECT seq FROM events WHERE created_at < $1 ORDER BY created_at LIMIT $2),
         replays AS (DELETE FROM webhook_replays WHERE event_seq IN (SELECT seq FROM old)),
         events_gone AS (DELETE FROM events WHERE seq IN (SELECT seq FROM old) RETURNING 1),
         attempts_gone AS (
           DELETE FROM webhook_attempts WHERE seq IN (SELECT seq FROM webhook_attempts WHERE attempted_at < $1 LIMIT $2)
           RETURNING 1
         )
       SELECT (SELECT count(*) FROM events_gone) + (SELECT count(*) FROM attempts_gone) AS deleted`,
      [before, limit],
    );
    return Number(rows[0]?.deleted ?? 0);
  }
}
