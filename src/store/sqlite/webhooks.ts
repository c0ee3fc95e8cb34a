// The accounts' webhook endpoints, their attempts and replays. Each write goes through the group commit, as
// every write a server makes: waiting for another process's lock between turns of the event loop, never in
// SQLite's busy handler, which would stall the thread. The events are the triggers' (migration 10).
import type Database from 'better-sqlite3';
import type { WebhookRepository } from '../backend.js';
import { type AttemptRow, deliveryOf, type EndpointRow, endpointOf, pageOf } from '../webhookRows.js';
import type {
  NewWebhookEndpoint,
  RecordedAttempt,
  ReplayRange,
  SecretRotation,
  WebhookEndpointChange,
} from '../webhookStore.js';
import type { Connection } from './connection.js';

const ENDPOINT_COLUMNS = `seq, id, url, events, description, status, disabled_reason, created_at, updated_at`;

export class Webhooks implements WebhookRepository {
  readonly #connection: Connection;
  readonly #statements: ReturnType<typeof endpointStatements> & ReturnType<typeof deliveryStatements>;

  constructor(connection: Connection) {
    this.#connection = connection;
    this.#statements = { ...endpointStatements(connection.db), ...deliveryStatements(connection.db) };
  }

  createEndpoint(accountId: number, endpoint: NewWebhookEndpoint, max: number) {
    const { count, insert, find } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      if ((count.get(accountId) as number) >= max) return 'too_many' as const;
      insert.run({
        id: endpoint.id,
        account_id: accountId,
        url: endpoint.url,
        events: endpoint.events.join(' '),
        description: endpoint.description ?? null,
        secret: endpoint.secret,
        created_at: endpoint.createdAt,
      });
      return endpointOf(find.get(accountId, endpoint.id) as EndpointRow);
    });
  }

  listEndpoints(accountId: number, after: number, limit: number) {
    return pageOf(this.#statements.page.all(accountId, after, limit + 1), limit, endpointOf);
  }

  findEndpoint(accountId: number, endpointId: string) {
    const row = this.#statements.find.get(accountId, endpointId);
    return row && endpointOf(row);
  }

  updateEndpoint(accountId: number, endpointId: string, change: WebhookEndpointChange, at: string) {
    const { update, find } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      const { changes } = update.run({
        account_id: accountId,
        id: endpointId,
        url: change.url ?? null,
        events: change.events?.join(' ') ?? null,
        description: change.description ?? null,
        status: change.status ?? null,
        at,
      });
      if (changes === 0) return undefined;
      return endpointOf(find.get(accountId, endpointId) as EndpointRow);
    });
  }

  deleteEndpoint(accountId: number, endpointId: string) {
    return this.#connection.groupCommit.run(() => this.#statements.delete.run(accountId, endpointId).changes > 0);
  }

  rotateSecret(accountId: number, endpointId: string, { secret, at, previousExpiresAt }: SecretRotation) {
    const { rotate } = this.#statements;
    return this.#connection.groupCommit.run(
      () => rotate.run({ account_id: accountId, id: endpointId, secret, at, previous_expires_at: previousExpiresAt }).changes > 0,
    );
  }

  listDeliveries(accountId: number, endpointId: string, before: number, limit: number) {
    const { endpointSeq, attempts } = this.#statements;
    const read = this.#connection.db.transaction(() => {
      const seq = endpointSeq.get(accountId, endpointId) as number | undefined;
      if (seq === undefined) return undefined;
      return pageOf(attempts.all(seq, before === 0 ? Number.MAX_SAFE_INTEGER : before, limit + 1), limit, deliveryOf);
    });
    return read();
  }

  replayEvents(accountId: number, endpointId: string, { since, until, limit, at }: ReplayRange) {
    const { endpointSeq, replayable, queueReplay } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      const seq = endpointSeq.get(accountId, endpointId) as number | undefined;
      if (seq === undefined) return undefined;
      const events = replayable.all({ endpoint_seq: seq, since, until, limit: limit + 1 });
      const queued = events.slice(0, limit);
      for (const event of queued) queueReplay.run(seq, event.seq, at);
      const next = events[limit];
      return { queued: queued.length, ...(next && { nextSince: next.created_at }) };
    });
  }

  recordAttempt(attempt: RecordedAttempt) {
    const { insertAttempt, anyEndpointSeq } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      insertAttempt.run({
        endpoint_seq: anyEndpointSeq.get(attempt.endpointId),
        event_id: attempt.eventId,
        event_type: attempt.eventType,
        attempt: attempt.attempt,
        outcome: attempt.outcome,
        status_code: attempt.statusCode ?? null,
        error: attempt.error ?? null,
        attempted_at: attempt.attemptedAt,
      });
    });
  }
}

/** The endpoints' own rows. */
function endpointStatements(db: Database.Database) {
  return {
    count: db.prepare<[number]>(`SELECT count(*) FROM webhook_endpoints WHERE account_id = ?`).pluck(),
    insert: db.prepare<[Record<string, unknown>]>(
      `INSERT INTO webhook_endpoints (id, account_id, url, events, description, status, secret, sent_seq,
         created_at, updated_at)
       VALUES (:id, :account_id, :url, :events, :description, 'enabled', :secret,
         (SELECT coalesce(max(seq), 0) FROM events), :created_at, :created_at)`,
    ),
    find: db.prepare<[number, string], EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ? AND id = ?`,
    ),
    page: db.prepare<[number, number, number], EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    update: db.prepare<[Record<string, unknown>]>(
      `UPDATE webhook_endpoints SET
         url = coalesce(:url, url),
         events = coalesce(:events, events),
         description = CASE WHEN :description IS NULL THEN description ELSE nullif(:description, '') END,
         status = coalesce(:status, status),
         disabled_reason = CASE :status WHEN 'enabled' THEN NULL WHEN 'disabled' THEN 'client' ELSE disabled_reason END,
         sent_seq = CASE WHEN :status = 'enabled' AND status = 'disabled'
           THEN (SELECT coalesce(max(seq), 0) FROM events) ELSE sent_seq END,
         attempts = CASE WHEN :status = 'enabled' AND status = 'disabled' THEN 0 ELSE attempts END,
         due_at = CASE WHEN :status = 'enabled' AND status = 'disabled' THEN NULL ELSE due_at END,
         failing_since = CASE WHEN :status = 'enabled' AND status = 'disabled' THEN NULL ELSE failing_since END,
         updated_at = :at
       WHERE account_id = :account_id AND id = :id`,
    ),
    delete: db.prepare<[number, string]>(`DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?`),
    rotate: db.prepare<[Record<string, unknown>]>(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = :previous_expires_at,
         secret = :secret, updated_at = :at
       WHERE account_id = :account_id AND id = :id`,
    ),
  };
}

/** The attempts and replays, and the endpoint each belongs to. */
function deliveryStatements(db: Database.Database) {
  return {
    endpointSeq: db.prepare<[number, string]>(`SELECT seq FROM webhook_endpoints WHERE account_id = ? AND id = ?`).pluck(),
    anyEndpointSeq: db.prepare<[string]>(`SELECT seq FROM webhook_endpoints WHERE id = ?`).pluck(),
    attempts: db.prepare<[number, number, number], AttemptRow>(
      `SELECT seq, event_id, event_type, attempt, outcome, status_code, error, attempted_at FROM webhook_attempts
       WHERE endpoint_seq = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
    ),
    insertAttempt: db.prepare<[Record<string, unknown>]>(
      `INSERT INTO webhook_attempts (endpoint_seq, event_id, event_type, attempt, outcome, status_code, error, attempted_at)
       VALUES (:endpoint_seq, :event_id, :event_type, :attempt, :outcome, :status_code, :error, :attempted_at)`,
    ),
    // The endpoint's events of the range: of the types it subscribes to, of its account or of none, passed
    // (those after its position are still to be sent, unless it is disabled: enabling passes them) and not
    // before it was registered, with no delivered attempt for it, not queued for it already.
    replayable: db.prepare<[Record<string, unknown>], { seq: number; created_at: string }>(
      `SELECT e.seq, e.created_at FROM events e, webhook_endpoints w
       WHERE w.seq = :endpoint_seq AND e.created_at >= :since AND e.created_at < :until
         AND instr(' ' || w.events || ' ', ' ' || e.type || ' ') > 0
         AND ((e.xact, e.seq) <= (w.sent_xact, w.sent_seq) OR w.status = 'disabled')
         AND e.created_at >= w.created_at
         AND (e.account_id IS NULL OR e.account_id = w.account_id)
         AND NOT EXISTS (SELECT 1 FROM webhook_attempts a
           WHERE a.endpoint_seq = w.seq AND a.event_id = e.id AND a.outcome = 'delivered')
         AND NOT EXISTS (SELECT 1 FROM webhook_replays r WHERE r.endpoint_seq = w.seq AND r.event_seq = e.seq)
       ORDER BY e.created_at, e.seq LIMIT :limit`,
    ),
    queueReplay: db.prepare<[number, number, string]>(
      `INSERT INTO webhook_replays (endpoint_seq, event_seq, queued_at) VALUES (?, ?, ?)`,
    ),
  };
}
