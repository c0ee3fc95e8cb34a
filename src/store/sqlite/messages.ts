// The message queue, and the Idempotency-Key of sendMessage: a retry replays the first answer as sent.
import type { MessageRepository, QueuedAnswer } from '../backend.js';
import { MESSAGE_LISTING } from '../rows.js';
import { type IdempotencyKey, type Message, type NewMessage, type StoredMessage, UNAUTHORIZED } from '../store.js';
import type { Connection } from './connection.js';

export class Messages implements MessageRepository {
  readonly #connection: Connection;
  /** The account of the active key whose digest is given; undefined for any other. */
  readonly #accountOfKey: (digest: Buffer) => number | undefined;
  readonly #statements;

  constructor(connection: Connection, accountOfKey: (digest: Buffer) => number | undefined) {
    const { db } = connection;
    this.#connection = connection;
    this.#accountOfKey = accountOfKey;
    this.#statements = {
      insert: db.prepare<[string, number, string, string]>(
        `INSERT INTO messages (id, account_id, body, status, created_at) VALUES (?, ?, ?, 'queued', ?)`,
      ),
      list: db.prepare<[], StoredMessage>(MESSAGE_LISTING),
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

  /** The account is the caller's key's, read within the write's transaction. */
  enqueue({ id, message, createdAt }: NewMessage, queued: Message, key: Buffer) {
    const { insert } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      const accountId = this.#accountOfKey(key);
      if (accountId === undefined) return UNAUTHORIZED;
      insert.run(id, accountId, message, createdAt);
      return queued;
    });
  }

  enqueueOnce(
    message: NewMessage,
    { key, fingerprint }: IdempotencyKey,
    oldestKept: string,
    queued: QueuedAnswer,
    callerKey: Buffer,
  ) {
    return this.#connection.groupCommit.run(() => {
      const accountId = this.#accountOfKey(callerKey);
      if (accountId === undefined) return { outcome: UNAUTHORIZED } as const;
      const { id, createdAt } = message;
      const earlier = this.#statements.earlierAnswer.get(accountId, key);
      if (earlier && earlier.created_at >= oldestKept) {
        if (!earlier.fingerprint.equals(fingerprint)) return { outcome: 'key_reused' } as const;
        return { outcome: 'replayed', status: earlier.status, body: earlier.body } as const;
      }
      if (earlier) this.#statements.forgetKey.run(accountId, key);
      this.#statements.insert.run(id, accountId, message.message, createdAt);
      this.#statements.rememberKey.run(accountId, key, fingerprint, 202, queued.body, createdAt);
      return { outcome: 'queued', message: queued.message } as const;
    });
  }

  /** In the next batch of writes, as a write of its own: one that fails fails alone. */
  purgeKeys(oldestKept: string): Promise<void> {
    return this.#connection.groupCommit.run(() => {
      this.#statements.purgeKeys.run(oldestKept);
    });
  }

  list(): StoredMessage[] {
    return this.#statements.list.all();
  }

  countQueued(): number {
    return this.#statements.countQueued.get() as number;
  }
}
