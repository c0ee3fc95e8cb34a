// The SQL of the message queue that both backends share (but for how a parameter is written), and the one
// mapping of its rows to the seam's types. A queued message is in one of three states, told by two
// columns: due (`due_at` null, or past), held by a claim (`lease_owner` set and `due_at`, the end of its
// lease, ahead), or waiting for a retry (`lease_owner` null and `due_at` ahead). A lease that ended makes
// its message due again: its process stopped before it settled it.
import type { Parameter } from './orderPages.js';
import type {
  ClaimedMessage,
  MessageClaim,
  MessageFilter,
  MessageStatus,
  MessageWithStatus,
  Settlement,
  StoredMessage,
} from './store.js';

/** The statuses a message ends in, each with an index of its own by the time it was set (retention's). */
export const SETTLED_STATUSES = ['delivered', 'failed'] as const satisfies readonly MessageStatus[];

/**
 * How many messages of each kind (new ones by arrival, retries by when they are due) a claim looks at, at
 * most: its work is bounded however long the queue, and a claim that finds every one it looked at held
 * back by an earlier message of its account in flight finds the rest next time, as those are delivered.
 */
export const EXAMINED_PER_CLAIM = 1_000;

/** What the backends' claim differs in: how a parameter is written, and how a read names its index. */
export interface QueueDialect {
  parameter: Parameter;
  /**
   * The words after a table that make a read use `index`: SQLite's planner, which has no statistics here,
   * would read the new and the due messages through queued_messages, every queued one, the waiting retries
   * included; PostgreSQL's picks the partial indexes by itself.
   */
  indexedBy: (index: string) => string;
}

/**
 * The claim: the due messages in arrival order whose account has no earlier message held by a claim, up
 * to `limit`, leased to `owner` (each claim counts an attempt), with what their delivery needs. The due
 * ones are read from two partial indexes, never the whole queue: the new (never claimed, or released) by
 * `seq` (fresh_messages), and the others by `due_at` (due_messages); the account's held messages from a
 * third (leased_messages). The conditions are repeated on the UPDATE itself, so that PostgreSQL checks them
 * again on a row that changed while it waited for it. The order of the rows it returns is the caller's to
 * set (by `seq`).
 */
export function claimSql({ owner, now, leaseUntil, limit }: MessageClaim, examined: number, dialect: QueueDialect): string {
  const { parameter, indexedBy } = dialect;
  // Written left to right: SQLite numbers its parameters in the order of the text.
  const set = `lease_owner = ${parameter(owner)}, due_at = ${parameter(leaseUntil)}, attempts = attempts + 1`;
  const fresh = `SELECT seq, account_id FROM messages ${indexedBy('fresh_messages')}
    WHERE status = 'queued' AND due_at IS NULL ORDER BY seq LIMIT ${parameter(examined)}`;
  const due = `SELECT seq, account_id FROM messages ${indexedBy('due_messages')}
    WHERE status = 'queued' AND due_at IS NOT NULL AND due_at <= ${parameter(now)}
    ORDER BY due_at LIMIT ${parameter(examined)}`;
  const heldBefore = `SELECT 1 FROM messages e WHERE e.account_id = c.account_id AND e.status = 'queued'
    AND e.lease_owner IS NOT NULL AND e.seq < c.seq AND e.due_at > ${parameter(now)}`;
  // The candidates carry their account: joined back to the table by seq, PostgreSQL would merge them with
  // the whole primary key from its first row, every delivered message kept included.
  return `UPDATE messages SET ${set}
  WHERE seq IN (
    SELECT c.seq FROM (SELECT * FROM (${fresh}) AS fresh UNION ALL SELECT * FROM (${due}) AS due) AS c
    WHERE NOT EXISTS (${heldBefore})
    ORDER BY c.seq LIMIT ${parameter(limit)}
  ) AND status = 'queued' AND (due_at IS NULL OR due_at <= ${parameter(now)})
  RETURNING seq, id, (SELECT a.name FROM accounts a WHERE a.id = messages.account_id) AS account, body AS message,
    created_at, attempts, last_error, traceparent`;
}

/** Named as StoredMessage names them, in arrival order; the body as the backend keeps it. */
export function messageListingSql({ status, limit }: MessageFilter, parameter: Parameter): string {
  return `SELECT m.id, a.name AS account, m.body AS message, m.status, m.created_at, m.updated_at, m.attempts,
      m.last_error
    FROM messages m JOIN accounts a ON a.id = m.account_id
    ${status === undefined ? '' : `WHERE m.status = ${parameter(status)}`}
    ORDER BY m.seq ${limit === undefined ? '' : `LIMIT ${parameter(limit)}`}`;
}

/** One message as a client reads it, if the account sent it. */
export function findMessageSql(parameter: Parameter, messageId: string, accountId: number): string {
  return `SELECT id, body AS message, status, created_at, updated_at, attempts, last_error FROM messages
    WHERE id = ${parameter(messageId)} AND account_id = ${parameter(accountId)}`;
}

/** A row of the queue, its body decoded by its backend. */
export interface MessageRow {
  id: string;
  message: string;
  status: MessageStatus;
  created_at: string;
  updated_at: string | null;
  attempts: number;
  last_error: string | null;
}

export function toMessageWithStatus({ id, message, status, created_at, updated_at }: MessageRow): MessageWithStatus {
  return { id, message, status, createdAt: created_at, updatedAt: updated_at ?? created_at };
}

/** In the order the CLI prints them: the listing's fields first, then the delivery's. */
export function toStoredMessage(row: MessageRow & { account: string }): StoredMessage {
  const { id, message, status, createdAt, updatedAt } = toMessageWithStatus(row);
  const stored: StoredMessage = { id, account: row.account, message, status, createdAt, updatedAt, attempts: row.attempts };
  if (row.last_error !== null) stored.lastError = row.last_error;
  return stored;
}

export type ClaimedRow = Omit<MessageRow, 'status' | 'updated_at'> & { seq: number; account: string; traceparent: string | null };

/** The rows a claim returned, in arrival order. */
export function toClaimedMessages(rows: readonly ClaimedRow[]): ClaimedMessage[] {
  return [...rows]
    .sort((a, b) => a.seq - b.seq)
    .map(({ id, account, message, created_at, attempts, last_error, traceparent }) => ({
      id,
      account,
      message,
      createdAt: created_at,
      attempt: attempts,
      ...(last_error !== null && { lastError: last_error }),
      ...(traceparent !== null && { traceparent }),
    }));
}

/**
 * The columns a settlement sets, besides clearing the lease: a released message gets its attempt back, and
 * `updated_at` and `last_error` keep their values where null.
 */
export function settlementColumns(settlement: Settlement) {
  const row = { id: settlement.id, status: 'queued', updated_at: null, due_at: null, last_error: null, attempts_back: 0 };
  switch (settlement.outcome) {
    case 'delivered':
      return { ...row, status: 'delivered', updated_at: settlement.at };
    case 'retry':
      return { ...row, due_at: settlement.dueAt, last_error: settlement.error };
    case 'failed':
      return { ...row, status: 'failed', updated_at: settlement.at, last_error: settlement.error };
    case 'released':
      return { ...row, attempts_back: 1 };
  }
}

export type SettlementRow = ReturnType<typeof settlementColumns>;
