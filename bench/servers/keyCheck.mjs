// How the baselines check the key. `keyChecker` does what the project does on a cache miss (parse, refuse
// malformed keys, look the SHA-256 digest up with a prepared statement, compare in constant time);
// `digestChecker` is the cheapest honest check, for the ceilings.
import { timingSafeEqual } from 'node:crypto';
import { KnownCallers } from '../../dist/http/auth.js';
import { keyDigest } from '../../dist/keys.js';
import { bearerToken } from '../../dist/serving/bearerToken.js';
import { toOrder } from '../../dist/store/rows.js';

export function keyChecker(db) {
  const activeKey = db.prepare(
    'SELECT id, account_id, digest FROM api_keys WHERE digest = ? AND revoked_at IS NULL',
  );
  const keys = {
    async findActiveKey(digest) {
      const row = activeKey.get(digest);
      return row && { keyId: row.id, accountId: row.account_id, digest: row.digest };
    },
  };
  // Looked up every time, as the project's first request of a key is.
  const callers = new KnownCallers(keys);
  return async (authorization) => (await callers.identify(authorization, true))?.principal;
}

/** The active keys' digests in a SQLite file, read once at start for `digestChecker`. */
export const activeDigests = (db) =>
  db.prepare('SELECT digest FROM api_keys WHERE revoked_at IS NULL').pluck().all();

/**
 * Each request's token is hashed with SHA-256 and compared with the active keys' digests in memory, in
 * constant time. True for a valid key.
 */
export function digestChecker(digests) {
  return (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return false;
    const digest = keyDigest(token);
    return digests.some((known) => known.length === digest.length && timingSafeEqual(known, digest));
  };
}

export function openBaselineDatabase(Database, path, synchronous) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}

/** The order list as the project answers it, serialized once: the ceilings send these bytes as they are. */
export function serializedOrderList(db) {
  const rows = db
    .prepare(
      `SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`,
    )
    .all();
  return Buffer.from(
    JSON.stringify(
      // The project's own mapping of a row, which leaves out a column with no value.
      rows.map(toOrder),
    ),
  );
}
