// npm run test:prism: the whole suite again, with every request it can send going through Prism validating
// proxies of the contracts (test/support/prismProxy.ts). CONTRACT_PROXY_PASS=skip, which .ci/run sets on
// the Node lines other than the machine's, says so and passes: what Prism checks is the contract on the
// wire, the same on every line, and the suite on that line already validates every answer it receives.
import { spawnSync } from 'node:child_process';

if (process.env.CONTRACT_PROXY_PASS === 'skip') {
  console.log('test:prism: skipped here (CONTRACT_PROXY_PASS=skip); the run through Prism is made on another Node line.');
  process.exit(0);
}
const run = spawnSync('npx', ['vitest', 'run'], {
  stdio: 'inherit',
  env: { ...process.env, CONTRACT_PROXY: 'prism' },
});
process.exit(run.status ?? 1);
