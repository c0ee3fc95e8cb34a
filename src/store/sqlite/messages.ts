// The message queue, and the Idempotency-Key of sendMessage: a retry replays the first answer as sent.
import type { IdempotencyKey, IdempotentOutcome, Message, NewMessage, StoredMessage } from '../store.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../store.js';
import { KeysInFlight } from '../keysInFlight.js';
import type { Connection } from './connection.js';

/** Expired keys are refused by age anyway: purging them only bounds the table, so it need not be often. */
const PURGE_EVERY_MS = 60_000;

export class Messages {
  readonly #connection: Connection;
  readonly #statements;
  readonly #keysInFlight = new KeysInFlight();
  #lastPurge = 0;

  constructor(connection: Connection) {
    const { db } = connection;
    this.#connection = connection;
    this.#statements = {
      insert: db.prepare<[string, number, string, string]>(
        `INSERT INTO messages (id, account_id, body, status, created_at) VALUES (?, ?, ?, 'queued', ?)`,
      ),
      // Named as StoredMessage names them, in the same order.
      list: db.prepare<[], StoredMessage>(
        `SELECT m.id, a.name AS account, m.body AS message, m.status, m.created_at AS createdAt
         FROM messages m JOIN accounts a ON a.id = m.account_id ORDER BY m.seq`,
      ),
      countQueued: db.prepare(`SELECT count(*) FROM messages WHERE status = 'queued'`).pluck(),
      earlierAnswer: db.prepare<
        [number, string],
        { fingerprint: Buffer; status: number; body: string; created_at: string }
      >(
        `SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE account_id = ? AND key = ?`,
      ),
      forgetKey: db.prepare<[number, string]>(
        `DELETE FROM idempotency_keys WHERE account_id = ? AND key = ?`,
      ),
      rememberKey: db.prepare<[number, string, Buffer, number, string, string]>(
        `INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      purgeKeys: db.prepare<[string]>(`DELETE FROM idempotency_keys WHERE created_at < ?`),
    };
  }

  async enqueue({ id, accountId, message, createdAt }: NewMessage): Promise<Message> {
    const { insert } = this.#statements;
    await this.#connection.groupCommit.run(() => insert.run(id, accountId, message, createdAt));
    return { id, message, status: 'queued', createdAt };
  }

  enqueueOnce(message: NewMessage, { key, fingerprint }: IdempotencyKey): Promise<IdempotentOutcome> {
    return this.#keysInFlight.run(message.accountId, key, () =>
      this.#connection.groupCommit.run(() => this.#enqueueOnce(message, key, fingerprint)),
    );
  }

  list(): StoredMessage[] {
    return this.#statements.list.all();
  }

  countQueued(): number {
    return this.#statements.countQueued.get() as number;
  }

  #enqueueOnce(message: NewMessage, key: string, fingerprint: Buffer): IdempotentOutcome {
    const { id, accountId, createdAt } = message;
    const oldestKept = new Date(Date.parse(createdAt) - IDEMPOTENCY_KEY_TTL_MS).toISOString();
    this.#purgeExpiredKeys(createdAt, oldestKept);
    const earlier = this.#statements.earlierAnswer.get(accountId, key);
    if (earlier && earlier.created_at >= oldestKept) {
      if (!earlier.fingerprint.equals(fingerprint)) return { outcome: 'key_reused' };
      return { outcome: 'replayed', status: earlier.status, body: earlier.body };
    }
    if (earlier) this.#statements.forgetKey.run(accountId, key);
    this.#statements.insert.run(id, accountId, message.message, createdAt);
    const queued: Message = { id, message: message.message, status: 'queued', createdAt };
    this.#statements.rememberKey.run(accountId, key, fingerprint, 202, JSON.stringify(queued), createdAt);
    return { outcome: 'queued', message: queued };
  }

  #purgeExpiredKeys(now: string, oldestKept: string): void {
    const nowMs = Date.parse(now);
    if (nowMs - this.#lastPurge < PURGE_EVERY_MS) return;
    this.#lastPurge = nowMs;
    this.#statements.purgeKeys.run(oldestKept);
  }
}
