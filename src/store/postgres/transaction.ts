// One transaction on a client of its own: committed when `work` ends, rolled back when it throws.
import type { Pool, PoolClient } from 'pg';

export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // The pool listens to a client's errors only while it is idle. PostgreSQL ending the connection between
  // two statements of this one (a restart's "terminating connection") is an 'error' event with no query to
  // fail, which unheard would take the process down; heard, the next statement fails (503).
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  let failure: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', onError);
    // A client that failed may have lost its connection: the pool must not hand it out again.
    client.release(failure instanceof Error ? failure : lost);
  }
}
