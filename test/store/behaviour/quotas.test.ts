// The request quotas' count, on every backend: in the database where the servers on one database share it,
// and on each machine otherwise, as the backend's test entry says (the multi-instance tests rely on it).
// What the count itself does is test/store/quotaCount.test.ts's.
import { describe, expect, it } from 'vitest';
import { onEveryBackend } from '../../support/storeSuite.js';

onEveryBackend('the $kind store', (t) => {
  describe('quotas', () => {
    it('gives the servers on one database a shared count of the quotas exactly where its test entry says so', () => {
      expect(t.store.quotas !== undefined).toBe(t.backend.sharedQuotas);
    });
  });
});
