// The message queue, and the Idempotency-Key of sendMessage: a retry replays the first answer as sent.
import type { Pool } from 'pg';
import type { MessageRepository, QueuedAnswer } from '../backend.js';
import { MESSAGE_LISTING } from '../rows.js';
import { type IdempotencyKey, type Message, type NewMessage, type StoredMessage, UNAUTHORIZED } from '../store.js';

/** A row of the list as read: the body is its UTF-8 bytes (migration 4). */
type StoredRow = Omit<StoredMessage, 'message'> & { message: Buffer };

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

  /** `writeBudgetMs`: how long a write may take in PostgreSQL before it gives up, writing nothing. */
  constructor(pool: Pool, writeBudgetMs: number | null) {
    this.#pool = pool;
    this.#writeBudgetMs = writeBudgetMs;
  }

  /** One statement, which checks the caller's key and takes the account from it (migration 8). */
  async enqueue({ id, message, createdAt }: NewMessage, queued: Message, key: Buffer) {
    const { rows } = await this.#pool.query<{ queued: boolean }>(
      `SELECT enqueue_message_for_key($1, $2, $3, $4, $5) AS queued`,
      [key, id, utf8(message), createdAt, this.#writeBudgetMs],
    );
    return rows[0]?.queued ? queued : UNAUTHORIZED;
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
      `SELECT outcome, status, body FROM enqueue_message_once_for_key($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [callerKey, key, fingerprint, oldestKept, id, utf8(message.message), createdAt, queued.body, this.#writeBudgetMs],
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

  async list(): Promise<StoredMessage[]> {
    const { rows } = await this.#pool.query<StoredRow>(MESSAGE_LISTING);
    return rows.map(({ id, account, message, status, createdAt }) => ({
      id,
      account,
      message: message.toString('utf8'),
      status,
      createdAt,
    }));
  }

  async countQueued(): Promise<number> {
    const { rows } = await this.#pool.query<{ count: number }>(
      `SELECT count(*)::integer AS count FROM messages WHERE status = 'queued'`,
    );
    return rows[0]?.count ?? 0;
  }
}
