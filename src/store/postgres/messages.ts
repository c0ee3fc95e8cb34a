// The message queue, the Idempotency-Key of sendMessage (a retry replays the first answer as sent), and the
// claims that deliver it, which every server makes one at a time.
import type { Pool } from 'pg';
import type { MessageRepository, QueuedAnswer } from '../backend.js';
import * as queue from '../messageQueue.js';
import {
  type IdempotencyKey,
  type Message,
  type MessageClaim,
  type MessageFilter,
  type MessageStatus,
  type NewMessage,
  type RetryOutcome,
  type Settlement,
  UNAUTHORIZED,
} from '../store.js';
import { GroupCommit } from './groupCommit.js';
import { parameterInto } from './orders.js';
import { inTransaction } from './transaction.js';

/** The SQLSTATE queue_message_checked raises for a key that is not active (migration 11). */
const KEY_NOT_ACTIVE = 'SO401';

/** A message to queue under the digest of its sender's key, as written. */
interface QueuedRow {
  key: Buffer;
  id: string;
  body: Buffer;
  createdAt: string;
  traceparent: string | null;
}

/** A row as read: the body is its UTF-8 bytes (migration 4). */
type Stored<Row extends { message: string }> = Omit<Row, 'message'> & { message: Buffer };

function decoded<Row extends { message: string }>(row: Stored<Row>): Row {
  return { ...row, message: row.message.toString('utf8') } as Row;
}

/**
 * A message as stored: its UTF-8 bytes, since text cannot hold U+0000 (migration 4). The contract takes
 * only well-formed strings (no lone surrogate), so the bytes decode to the same string.
 */
function utf8(message: string): Buffer {
  return Buffer.from(message, 'utf8');
}

export class Messages implements MessageRepository {
  readonly #pool: Pool;
  readonly #writeBudgetMs: number | null;
  readonly #now: () => string;
  readonly #queued: GroupCommit<QueuedRow, boolean>;

  /** `writeBudgetMs`: how long a write may take in PostgreSQL before it gives up, writing nothing. */
  constructor(pool: Pool, writeBudgetMs: number | null, now: () => string) {
    this.#pool = pool;
    this.#writeBudgetMs = writeBudgetMs;
    this.#now = now;
    this.#queued = new GroupCommit(
      (row) => this.#queueOne(row),
      (rows) => this.#queueMany(rows),
    );
  }

  /** With the other sends of its turn (groupCommit.ts); the statement checks each sender's key. */
  async enqueue({ id, message, createdAt, traceparent }: NewMessage, queued: Message, key: Buffer) {
    const written = await this.#queued.run({ key, id, body: utf8(message), createdAt, traceparent: traceparent ?? null });
    return written ? queued : UNAUTHORIZED;
  }

  /** One CALL: true once written, false if the key is not active, with nothing written (migration 11). */
  async #queueOne({ key, id, body, createdAt, traceparent }: QueuedRow): Promise<boolean> {
    try {
      await this.#pool.query(`CALL queue_message_checked($1, $2, $3, $4, $5, $6)`, [
        key, id, body, createdAt, traceparent, this.#writeBudgetMs,
      ]);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code !== KEY_NOT_ACTIVE) throw error;
      return false;
    }
  }

  /** One statement for all, in their order; it answers the ids it refused for their key (migrations 12, 16). */
  async #queueMany(rows: readonly QueuedRow[]): Promise<boolean[]> {
    const column = <Field extends keyof QueuedRow>(field: Field) => rows.map((row) => row[field]);
    const { rows: answered } = await this.#pool.query<{ refused: string[] }>(
      `SELECT queue_messages_checked($1, $2, $3, $4, $5, $6) AS refused`,
      [column('key'), column('id'), column('body'), column('createdAt'), column('traceparent'), this.#writeBudgetMs],
    );
    const refused = new Set(answered[0]?.refused);
    return rows.map(({ id }) => !refused.has(id));
  }

  /** enqueue_message_once_for_key() claims the key's row first, so a retry on any server waits for this one. */
  async enqueueOnce(
    message: NewMessage,
    { key, fingerprint }: IdempotencyKey,
    oldestKept: string,
    queued: QueuedAnswer,
    callerKey: Buffer,
  ) {
    const { id, createdAt } = message;
    type Row = { outcome: 'queued' | 'replayed' | 'key_reused' | typeof UNAUTHORIZED; status: number; body: string };
    const { rows } = await this.#pool.query<Row>(
      `SELECT outcome, status, body FROM enqueue_message_once_for_key($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        callerKey, key, fingerprint, oldestKept, id, utf8(message.message), createdAt, message.traceparent ?? null,
        queued.body, this.#writeBudgetMs,
      ],
    );
    const answer = rows[0];
    if (answer?.outcome === 'queued') return { outcome: 'queued', message: queued.message } as const;
    if (answer?.outcome === 'replayed') return { outcome: 'replayed', status: answer.status, body: answer.body } as const;
    if (answer?.outcome === UNAUTHORIZED) return { outcome: UNAUTHORIZED } as const;
    return { outcome: 'key_reused' } as const;
  }

  async purgeKeys(oldestKept: string): Promise<void> {
    await this.#pool.query(`DELETE FROM idempotency_keys WHERE created_at < $1`, [oldestKept]);
  }

  async find(messageId: string, accountId: number) {
    const values: unknown[] = [];
    const sql = queue.findMessageSql(parameterInto(values), messageId, accountId);
    const { rows } = await this.#pool.query<Stored<queue.MessageRow>>(sql, values);
    return rows[0] === undefined ? undefined : queue.toMessageWithStatus(decoded(rows[0]));
  }

  async list(filter: MessageFilter) {
    const values: unknown[] = [];
    const sql = queue.messageListingSql(filter, parameterInto(values));
    const { rows } = await this.#pool.query<Stored<queue.MessageRow & { account: string }>>(sql, values);
    return rows.map((row) => queue.toStoredMessage(decoded(row)));
  }

  async retry(messageId: string): Promise<RetryOutcome> {
    const { rows } = await this.#pool.query<{ outcome: RetryOutcome | null }>(
      `WITH retried AS (
         UPDATE messages SET status = 'queued', updated_at = $1, attempts = 0, due_at = NULL, lease_owner = NULL
         WHERE id = $2 AND status = 'failed' RETURNING 1
       )
       SELECT CASE WHEN EXISTS (SELECT 1 FROM retried) THEN 'requeued'
         ELSE (SELECT status FROM messages WHERE id = $2) END AS outcome`,
      [this.#now(), messageId],
    );
    return rows[0]?.outcome ?? 'missing';
  }

  /**
   * Claims are made one at a time, under a lock of the whole database's (held to the claim's commit): a
   * claim reads which of an account's messages are held once every earlier claim has committed, where
   * FOR UPDATE SKIP LOCKED would let it pass over an earlier message being claimed, and take a later one
   * of the same account. A claim is short (at most EXAMINED_PER_CLAIM rows of each kind looked at).
   */
  async claim(claim: MessageClaim, examined: number) {
    const values: unknown[] = [];
    const sql = queue.claimSql(claim, examined, { parameter: parameterInto(values), indexedBy: () => '' });
    const rows = await inTransaction(this.#pool, async (client) => {
      await client.query(`SELECT bound_lock_waits($1)`, [this.#writeBudgetMs]);
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('store-orders message claims'))`);
      return (await client.query<Stored<queue.ClaimedRow>>(sql, values)).rows;
    });
    return queue.toClaimedMessages(rows.map(decoded));
  }

  /** One statement for every settlement. */
  async settle(owner: string, settlements: readonly Settlement[]): Promise<void> {
    await this.#pool.query(
      `UPDATE messages m SET status = s.status, updated_at = coalesce(s.updated_at, m.updated_at),
         due_at = s.due_at, lease_owner = NULL, last_error = coalesce(s.last_error, m.last_error),
         attempts = m.attempts - s.attempts_back
       FROM json_to_recordset($2::json)
         AS s (id text, status text, updated_at text, due_at text, last_error text, attempts_back integer)
       WHERE m.id = s.id AND m.lease_owner = $1 AND m.status = 'queued'`,
      [owner, JSON.stringify(settlements.map(queue.settlementColumns))],
    );
  }

  /** Rows another server is deleting are left to it. The status is written out, for its partial index. */
  async deleteSettled(status: 'delivered' | 'failed', before: string, limit: number): Promise<number> {
    const { rowCount } = await this.#pool.query(
      `DELETE FROM messages WHERE seq IN (
         SELECT seq FROM messages WHERE status = '${status === 'delivered' ? 'delivered' : 'failed'}'
           AND updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return rowCount ?? 0;
  }

  async countQueued(): Promise<number> {
    const { rows } = await this.#pool.query<{ count: number }>(
      `SELECT count(*)::integer AS count FROM messages WHERE status = 'queued'`,
    );
    return rows[0]?.count ?? 0;
  }

  /** Each count from its own partial index. */
  async countByStatus(): Promise<Record<MessageStatus, number>> {
    const { rows } = await this.#pool.query<Record<MessageStatus, number>>(
      `SELECT (SELECT count(*) FROM messages WHERE status = 'queued')::integer AS queued,
         (SELECT count(*) FROM messages WHERE status = 'delivered')::integer AS delivered,
         (SELECT count(*) FROM messages WHERE status = 'failed')::integer AS failed`,
    );
    return rows[0] ?? { queued: 0, delivered: 0, failed: 0 };
  }

  /** The first entry of queued_messages, by seq (migration 9). */
  async oldestQueuedAt(): Promise<string | undefined> {
    const { rows } = await this.#pool.query<{ created_at: string }>(
      `SELECT created_at FROM messages WHERE status = 'queued' ORDER BY seq LIMIT 1`,
    );
    return rows[0]?.created_at;
  }
}
