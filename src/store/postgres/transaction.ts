// One transaction on a client of its own: committed when `work` ends, rolled back when it throws.
import type { Pool, PoolClient } from 'pg';

export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
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
    // A client that failed may have lost its connection: the pool must not hand it out again.
    client.release(failure instanceof Error ? failure : undefined);
  }
}
