// The message queue, and the Idempotency-Key of sendMessage: a retry replays the first answer as sent.
import type { Pool } from 'pg';
import { KeysInFlight } from '../keysInFlight.js';
import type { IdempotencyKey, IdempotentOutcome, Message, NewMessage, StoredMessage } from '../store.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../store.js';

/** A row of the list as read: the body is its UTF-8 bytes (migration 4). */
type StoredRow = Omit<StoredMessage, 'message'> & { message: Buffer };

/**
 * A message as stored: its UTF-8 bytes, since text cannot hold U+0000 (migration 4). The contract takes
 * only well-formed strings (no lone surrogate), so the bytes decode to the same string.
 */
function utf8(message: string): Buffer {
  return Buffer.from(message, 'utf8');
}

/** Expired keys are refused by age anyway: purging them only bounds the table, so it need not be often. */
const PURGE_EVERY_MS = 60_000;

export class Messages {
  readonly #pool: Pool;
  readonly #writeBudgetMs: number | null;
  readonly #keysInFlight = new KeysInFlight();
  #lastPurge = 0;

  /** `writeBudgetMs`: how long a write may take in PostgreSQL before it gives up, writing nothing. */
  constructor(pool: Pool, writeBudgetMs: number | null) {
    this.#pool = pool;
    this.#writeBudgetMs = writeBudgetMs;
  }

  async enqueue({ id, accountId, message, createdAt }: NewMessage): Promise<Message> {
    await this.#pool.query(`SELECT enqueue_message($1, $2, $3, $4, $5)`, [
      accountId,
      id,
      utf8(message),
      createdAt,
      this.#writeBudgetMs,
    ]);
    return { id, message, status: 'queued', createdAt };
  }

  enqueueOnce(message: NewMessage, { key, fingerprint }: IdempotencyKey): Promise<IdempotentOutcome> {
    return this.#keysInFlight.run(message.accountId, key, () => this.#enqueueOnce(message, key, fingerprint));
  }

  async list(): Promise<StoredMessage[]> {
    const { rows } = await this.#pool.query<StoredRow>(
      `SELECT m.id, a.name AS account, m.body AS message, m.status, m.created_at AS "createdAt"
       FROM messages m JOIN accounts a ON a.id = m.account_id ORDER BY m.seq`,
    );
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

  async #enqueueOnce(message: NewMessage, key: string, fingerprint: Buffer): Promise<IdempotentOutcome> {
    const { id, accountId, createdAt } = message;
    const oldestKept = new Date(Date.parse(createdAt) - IDEMPOTENCY_KEY_TTL_MS).toISOString();
    this.#purgeExpiredKeys(createdAt, oldestKept);
    const queued: Message = { id, message: message.message, status: 'queued', createdAt };
    const { rows } = await this.#pool.query<{ outcome: IdempotentOutcome['outcome']; status: number; body: string }>(
      `SELECT outcome, status, body FROM enqueue_message_once($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [accountId, key, fingerprint, oldestKept, id, utf8(message.message), createdAt, JSON.stringify(queued), this.#writeBudgetMs],
    );
    const answer = rows[0];
    if (answer?.outcome === 'queued') return { outcome: 'queued', message: queued };
    if (answer?.outcome === 'replayed') return { outcome: 'replayed', status: answer.status, body: answer.body };
    return { outcome: 'key_reused' };
  }

  /**
   * Housekeeping beside the request, not part of it: the request's answer never waits for it, so a purge
   * that fails or is slow cannot turn into a 503 for a message that was written, or the other way round.
   * A failed purge is tried again at the next cadence.
   */
  #purgeExpiredKeys(now: string, oldestKept: string): void {
    const nowMs = Date.parse(now);
    if (nowMs - this.#lastPurge < PURGE_EVERY_MS) return;
    this.#lastPurge = nowMs;
    this.#pool.query(`DELETE FROM idempotency_keys WHERE created_at < $1`, [oldestKept]).catch(() => undefined);
  }
}
