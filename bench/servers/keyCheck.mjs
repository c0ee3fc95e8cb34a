// The baselines check the key exactly as the project does: parse, refuse malformed keys, look up the
// SHA-256 digest with a prepared statement, compare in constant time.
import { authenticate } from '../../dist/http/auth.js';

export function keyChecker(db) {
  const activeKey = db.prepare(
    'SELECT id, account_id, digest FROM api_keys WHERE digest = ? AND revoked_at IS NULL',
  );
  const store = {
    findActiveKey(digest) {
      const row = activeKey.get(digest);
      return row && { keyId: row.id, accountId: row.account_id, digest: row.digest };
    },
  };
  return (authorization) => authenticate(authorization, store);
}

export function openBaselineDatabase(Database, path, synchronous) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}
