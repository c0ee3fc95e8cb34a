// npm run test:prism: the suite's files that send requests through the contract client again, with every
// request they can send going through Prism validating proxies of the contracts (test/support/prismProxy.ts;
// vitest.config.ts picks the files). It runs on the machine's Node.js line only: what Prism checks is the
// contract on the wire, the same on every line, and the suite on each line already validates every answer
// it receives.
import { spawnSync } from 'node:child_process';

const run = spawnSync('npx', ['vitest', 'run'], {
  stdio: 'inherit',
  env: { ...process.env, CONTRACT_PROXY: 'prism' },
});
process.exit(run.status ?? 1);
