// The message queue, the Idempotency-Key of sendMessage (a retry replays the first answer as sent), and the
// claims that deliver it: each a write of its own, so that the file's one writer serializes them.
import type Database from 'better-sqlite3';
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
import type { Connection } from './connection.js';
import { parameterInto } from './orders.js';

export class Messages implements MessageRepository {
  readonly #connection: Connection;
  /** The account of the active key whose digest is given; undefined for any other. */
  readonly #accountOfKey: (digest: Buffer) => number | undefined;
  readonly #statements;
  /** The statements whose text depends on what is asked (a listing's filter), one per shape. */
  readonly #shaped = new Map<string, Database.Statement<unknown[], unknown>>();

  constructor(connection: Connection, accountOfKey: (digest: Buffer) => number | undefined) {
    const { db } = connection;
    this.#connection = connection;
    this.#accountOfKey = accountOfKey;
    this.#statements = {
      insert: db.prepare<[string, number, string, string, string | null]>(
        `INSERT INTO messages (id, account_id, body, status, created_at, traceparent) VALUES (?, ?, ?, 'queued', ?, ?)`,
      ),
      countQueued: db.prepare(`SELECT count(*) FROM messages WHERE status = 'queued'`).pluck(),
      // Each count from its own partial index.
      countByStatus: db.prepare<[], Record<MessageStatus, number>>(
        `SELECT (SELECT count(*) FROM messages WHERE status = 'queued') AS queued,
          (SELECT count(*) FROM messages WHERE status = 'delivered') AS delivered,
          (SELECT count(*) FROM messages WHERE status = 'failed') AS failed`,
      ),
      // queued_messages holds the rowid, which is `seq`: its first entry is the oldest.
      oldestQueued: db.prepare(`SELECT created_at FROM messages WHERE status = 'queued' ORDER BY seq LIMIT 1`).pluck(),
      status: db.prepare<[string], { status: MessageStatus }>(`SELECT status FROM messages WHERE id = ?`),
      retry: db.prepare<[string, string]>(
        `UPDATE messages SET status = 'queued', updated_at = ?, attempts = 0, due_at = NULL, lease_owner = NULL
         WHERE id = ? AND status = 'failed'`,
      ),
      settle: db.prepare<[Record<string, unknown>]>(
        `UPDATE messages SET status = :status, updated_at = coalesce(:updated_at, updated_at), due_at = :due_at,
           lease_owner = NULL, last_error = coalesce(:last_error, last_error), attempts = attempts - :attempts_back
         WHERE id = :id AND lease_owner = :owner AND status = 'queued'`,
      ),
      // The status is written out, not bound: SQLite picks a partial index only for a WHERE it can read.
      deleteDelivered: db.prepare<[string, number]>(deleteSettledSql('delivered')),
      deleteFailed: db.prepare<[string, number]>(deleteSettledSql('failed')),
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
  enqueue({ id, message, createdAt, traceparent }: NewMessage, queued: Message, key: Buffer) {
    const { insert } = this.#statements;
    return this.#connection.groupCommit.run(() => {
      const accountId = this.#accountOfKey(key);
      if (accountId === undefined) return UNAUTHORIZED;
      insert.run(id, accountId, message, createdAt, traceparent ?? null);
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
      this.#statements.insert.run(id, accountId, message.message, createdAt, message.traceparent ?? null);
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

  find(messageId: string, accountId: number) {
    const values: unknown[] = [];
    const row = this.#shape(queue.findMessageSql(parameterInto(values), messageId, accountId)).get(...values);
    return row === undefined ? undefined : queue.toMessageWithStatus(row as queue.MessageRow);
  }

  list(filter: MessageFilter) {
    const values: unknown[] = [];
    const rows = this.#shape(queue.messageListingSql(filter, parameterInto(values))).all(...values);
    return (rows as (queue.MessageRow & { account: string })[]).map(queue.toStoredMessage);
  }

  retry(messageId: string): Promise<RetryOutcome> {
    return this.#connection.groupCommit.run(() => {
      const { status, retry } = this.#statements;
      if (retry.run(this.#connection.now(), messageId).changes === 1) return 'requeued';
      // Read in the same transaction: a message that was failed was just queued again.
      return (status.get(messageId)?.status as Exclude<MessageStatus, 'failed'> | undefined) ?? 'missing';
    });
  }

  claim(claim: MessageClaim, examined: number) {
    const values: unknown[] = [];
    const dialect = { parameter: parameterInto(values), indexedBy: (index: string) => `INDEXED BY ${index}` };
    const statement = this.#shape(queue.claimSql(claim, examined, dialect));
    return this.#connection.groupCommit.run(() => queue.toClaimedMessages(statement.all(...values) as queue.ClaimedRow[]));
  }

  settle(owner: string, settlements: readonly Settlement[]): Promise<void> {
    return this.#connection.groupCommit.run(() => {
      for (const settlement of settlements) this.#statements.settle.run({ ...queue.settlementColumns(settlement), owner });
    });
  }

  /** In batches of `limit`, each a write of its own: requests' writes go on in between. */
  deleteSettled(status: 'delivered' | 'failed', before: string, limit: number): Promise<number> {
    const statement = status === 'delivered' ? this.#statements.deleteDelivered : this.#statements.deleteFailed;
    return this.#connection.groupCommit.run(() => statement.run(before, limit).changes);
  }

  countQueued(): number {
    return this.#statements.countQueued.get() as number;
  }

  countByStatus() {
    return this.#statements.countByStatus.get() as Record<MessageStatus, number>;
  }

  oldestQueuedAt(): string | undefined {
    return this.#statements.oldestQueued.get() as string | undefined;
  }

  #shape(sql: string) {
    let statement = this.#shaped.get(sql);
    if (!statement) {
      statement = this.#connection.db.prepare<unknown[], unknown>(sql);
      this.#shaped.set(sql, statement);
    }
    return statement;
  }
}

function deleteSettledSql(status: 'delivered' | 'failed'): string {
  return `DELETE FROM messages WHERE seq IN (
    SELECT seq FROM messages WHERE status = '${status}' AND updated_at < ? ORDER BY updated_at LIMIT ?)`;
}
