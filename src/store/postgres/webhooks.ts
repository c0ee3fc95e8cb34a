// The accounts' webhook endpoints, their attempts and replays, as sqlite/webhooks.ts keeps them; the events
// are the triggers' (migration 15). Each write is one statement, or one transaction where it takes two.
import type { Pool } from 'pg';
import type { WebhookRepository } from '../backend.js';
import { type AttemptRow, deliveryOf, type EndpointRow, endpointOf, pageOf } from '../webhookRows.js';
import type {
  NewWebhookEndpoint,
  RecordedAttempt,
  ReplayRange,
  SecretRotation,
  WebhookEndpointChange,
} from '../webhookStore.js';
import { inTransaction } from './transaction.js';

/** bigint comes back as text from node-postgres: positions are safe integers (ids issued from 1 up). */
const ENDPOINT_COLUMNS = `seq::integer AS seq, id, url, events, description, status, disabled_reason, created_at, updated_at`;

/** The position an endpoint starts from: after every event of a transaction that has ended. */
const NOW_POSITION = `pg_snapshot_xmin(pg_current_snapshot()), 0`;

export class Webhooks implements WebhookRepository {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** The count and the insert under a lock on the account's row, so that two creates cannot both pass `max`. */
  createEndpoint(accountId: number, endpoint: NewWebhookEndpoint, max: number) {
    return inTransaction(this.#pool, async (client) => {
      await client.query(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, [accountId]);
      const { rows: counted } = await client.query<{ count: number }>(
        `SELECT count(*)::integer AS count FROM webhook_endpoints WHERE account_id = $1`,
        [accountId],
      );
      if ((counted[0]?.count ?? 0) >= max) return 'too_many' as const;
      const { rows } = await client.query<EndpointRow>(
        `INSERT INTO webhook_endpoints (id, account_id, url, events, description, status, secret, sent_xact, sent_seq,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'enabled', $6, ${NOW_POSITION}, $7, $7)
         RETURNING ${ENDPOINT_COLUMNS}`,
        [
          endpoint.id,
          accountId,
          endpoint.url,
          endpoint.events.join(' '),
          endpoint.description ?? null,
          endpoint.secret,
          endpoint.createdAt,
        ],
      );
      return endpointOf(rows[0] as EndpointRow);
    });
  }

  async listEndpoints(accountId: number, after: number, limit: number) {
    const { rows } = await this.#pool.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [accountId, after, limit + 1],
    );
    return pageOf(rows, limit, endpointOf);
  }

  async findEndpoint(accountId: number, endpointId: string) {
    const { rows } = await this.#pool.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`,
      [accountId, endpointId],
    );
    return rows[0] && endpointOf(rows[0]);
  }

  async updateEndpoint(accountId: number, endpointId: string, change: WebhookEndpointChange, at: string) {
    const { rows } = await this.#pool.query<EndpointRow>(
      `WITH changed AS (
         SELECT seq, status = 'disabled' AND $6::text = 'enabled' AS enabling FROM webhook_endpoints
         WHERE account_id = $1 AND id = $2 FOR UPDATE
       )
       UPDATE webhook_endpoints w SET
         url = coalesce($3, w.url),
         events = coalesce($4, w.events),
         description = CASE WHEN $5::text IS NULL THEN w.description ELSE nullif($5, '') END,
         status = coalesce($6, w.status),
         disabled_reason = CASE $6::text WHEN 'enabled' THEN NULL WHEN 'disabled' THEN 'client' ELSE w.disabled_reason END,
         sent_xact = CASE WHEN c.enabling THEN pg_snapshot_xmin(pg_current_snapshot()) ELSE w.sent_xact END,
         sent_seq = CASE WHEN c.enabling THEN 0 ELSE w.sent_seq END,
         attempts = CASE WHEN c.enabling THEN 0 ELSE w.attempts END,
         due_at = CASE WHEN c.enabling THEN NULL ELSE w.due_at END,
         failing_since = CASE WHEN c.enabling THEN NULL ELSE w.failing_since END,
         updated_at = $7
       FROM changed c WHERE w.seq = c.seq
       RETURNING w.seq::integer AS seq, w.id, w.url, w.events, w.description, w.status, w.disabled_reason,
         w.created_at, w.updated_at`,
      [
        accountId,
        endpointId,
        change.url ?? null,
        change.events?.join(' ') ?? null,
        change.description ?? null,
        change.status ?? null,
        at,
      ],
    );
    return rows[0] && endpointOf(rows[0]);
  }

  async deleteEndpoint(accountId: number, endpointId: string) {
    const { rowCount } = await this.#pool.query(`DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2`, [
      accountId,
      endpointId,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async rotateSecret(accountId: number, endpointId: string, { secret, at, previousExpiresAt }: SecretRotation) {
    const { rowCount } = await this.#pool.query(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $3, secret = $4, updated_at = $5
       WHERE account_id = $1 AND id = $2`,
      [accountId, endpointId, previousExpiresAt, secret, at],
    );
    return (rowCount ?? 0) > 0;
  }

  /** One statement: the endpoint's row tells it is the account's, and an empty page from a known endpoint. */
  async listDeliveries(accountId: number, endpointId: string, before: number, limit: number) {
    const { rows } = await this.#pool.query<AttemptRow & { found: boolean }>(
      `SELECT a.seq::integer AS seq, a.event_id, a.event_type, a.attempt, a.outcome, a.status_code, a.error, a.attempted_at
       FROM webhook_endpoints w
       LEFT JOIN LATERAL (
         SELECT * FROM webhook_attempts WHERE endpoint_seq = w.seq AND seq < $3 ORDER BY seq DESC LIMIT $4
       ) a ON true
       WHERE w.account_id = $1 AND w.id = $2`,
      [accountId, endpointId, before === 0 ? Number.MAX_SAFE_INTEGER : before, limit + 1],
    );
    if (rows.length === 0) return undefined;
    return pageOf(rows.filter((row) => row.seq !== null), limit, deliveryOf);
  }

  replayEvents(accountId: number, endpointId: string, { since, until, limit, at }: ReplayRange) {
    return inTransaction(this.#pool, async (client) => {
      const { rows: found } = await client.query<{ seq: string }>(
        `SELECT seq FROM webhook_endpoints WHERE account_id = $1 AND id = $2 FOR UPDATE`,
        [accountId, endpointId],
      );
      const endpointSeq = found[0]?.seq;
      if (endpointSeq === undefined) return undefined;
      const { rows } = await client.query<{ created_at: string }>(
        `WITH replayable AS (
           -- The endpoint's events of the range, as SQLite's replayable says.
           SELECT e.seq, e.created_at FROM events e, webhook_endpoints w
           WHERE w.seq = $1 AND e.created_at >= $2 AND e.created_at < $3
             AND position(' ' || e.type || ' ' IN ' ' || w.events || ' ') > 0
             AND ((e.xact, e.seq) <= (w.sent_xact, w.sent_seq) OR w.status = 'disabled')
             AND e.created_at >= w.created_at
             AND (e.account_id IS NULL OR e.account_id = w.account_id)
             AND NOT EXISTS (SELECT 1 FROM webhook_attempts a
               WHERE a.endpoint_seq = w.seq AND a.event_id = e.id AND a.outcome = 'delivered')
             AND NOT EXISTS (SELECT 1 FROM webhook_replays r WHERE r.endpoint_seq = w.seq AND r.event_seq = e.seq)
           ORDER BY e.created_at, e.seq LIMIT $4
         ),
         queued AS (
           INSERT INTO webhook_replays (endpoint_seq, event_seq, queued_at)
           SELECT $1, seq, $6 FROM replayable ORDER BY created_at, seq LIMIT $5
         )
         SELECT created_at FROM replayable ORDER BY created_at, seq`,
        [endpointSeq, since, until, limit + 1, limit, at],
      );
      const next = rows[limit];
      return { queued: Math.min(rows.length, limit), ...(next && { nextSince: next.created_at }) };
    });
  }

  async recordAttempt(attempt: RecordedAttempt) {
    await this.#pool.query(
      `INSERT INTO webhook_attempts (endpoint_seq, event_id, event_type, attempt, outcome, status_code, error, attempted_at)
       SELECT seq, $2, $3, $4, $5, $6, $7, $8 FROM webhook_endpoints WHERE id = $1`,
      [
        attempt.endpointId,
        attempt.eventId,
        attempt.eventType,
        attempt.attempt,
        attempt.outcome,
        attempt.statusCode ?? null,
        attempt.error ?? null,
        attempt.attemptedAt,
      ],
    );
  }
}
