// Random bytes for ids made on every request (message ids, span ids): drawn from the system 4 KiB at a
// time, since one call per id costs more than the id.
import { randomBytes } from 'node:crypto';

const pool = { bytes: Buffer.alloc(0), used: 0 };

/** `byteCount` random bytes, a view of the pool that no later call hands out again. */
export function pooledRandomBytes(byteCount: number): Buffer {
  if (pool.used + byteCount > pool.bytes.length) {
    pool.bytes = randomBytes(Math.max(4096, byteCount));
    pool.used = 0;
  }
  pool.used += byteCount;
  return pool.bytes.subarray(pool.used - byteCount, pool.used);
}
