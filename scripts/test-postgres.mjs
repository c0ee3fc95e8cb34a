// npm run test:postgres: the operations, the checks that read the store and PostgreSQL's own faults, with
// every test server on a database of its own on TEST_DATABASE_URL's PostgreSQL. Without one it says so and
// passes: `scripts/throwaway-postgres.sh start DIR` starts one, and .ci/run always does.
import { spawnSync } from 'node:child_process';

if (!process.env.TEST_DATABASE_URL) {
  console.log('test:postgres: TEST_DATABASE_URL is not set, so nothing runs against PostgreSQL here.');
  console.log('  Start one with `scripts/throwaway-postgres.sh start /tmp/store-pg` (as root or a user with');
  console.log('  PostgreSQL 15 installed) and set TEST_DATABASE_URL to the URL it prints.');
  process.exit(0);
}
const run = spawnSync('npx', ['vitest', 'run'], {
  stdio: 'inherit',
  env: { ...process.env, VITEST_SUITE: 'postgres', TEST_STORE: 'postgres' },
});
process.exit(run.status ?? 1);
