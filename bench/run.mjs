// `npm run bench`: the project against its baselines, side by side in one run. Each scenario starts
// every contender on its own copy of the same database, then alternates their load runs over ROUNDS
// rounds and prints medians and ratios. BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) tune it;
// BENCH_ONLY=list,write,cold,big,workers,postgres,quota,pages,delivery,crowd,traces picks scenarios (a name that is
// none stops it).
// BENCH_SMOKE=1 runs every scenario once on small data, one 1-second round at a low request rate, to prove
// the bench still works at little cost (the test suite runs it); its figures mean nothing. The list and
// postgres scenarios also print the CPU time per request of each contender (its whole process), as ratios
// of speed: the baseline's CPU per request over the project's.
// Any contender that exits, never answers its probe within BENCH_START_TIMEOUT_MS (default 30000), or
// answers a load run with an error ends the bench at once with exit status 1, its name and its stderr.
// The postgres scenario runs on BENCH_POSTGRES_URL's server (a database of its own per contender), or else
// on a throwaway cluster that scripts/throwaway-postgres.sh starts; without either it prints why it skipped.
//
// The shared parts are in harness/; each scenario is a file of scenarios/ with its contenders and its rows,
// and runs when its name is in BENCH_ONLY, in the order of SCENARIOS.
import { cleanUp, fail, failOnError } from './harness/lifecycle.mjs';
import { printHead } from './harness/report.mjs';
import { CONNECTIONS, ROUNDS, SECONDS, SMOKE } from './harness/settings.mjs';
import big from './scenarios/big.mjs';
import cold from './scenarios/cold.mjs';
import crowd from './scenarios/crowd.mjs';
import delivery from './scenarios/delivery.mjs';
import list from './scenarios/list.mjs';
import pages from './scenarios/pages.mjs';
import postgres from './scenarios/postgres.mjs';
import quota from './scenarios/quota.mjs';
import traces from './scenarios/traces.mjs';
import workers from './scenarios/workers.mjs';
import write from './scenarios/write.mjs';

const SCENARIOS = [list, write, cold, big, workers, postgres, quota, pages, delivery, crowd, traces];
const ONLY = new Set(process.env.BENCH_ONLY?.split(',') ?? SCENARIOS.map(({ name }) => name));

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => fail(`stopped by ${signal}`));

async function main() {
  const unknown = [...ONLY].filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
  const names = SCENARIOS.map(({ name }) => name).join(',');
  if (unknown.length > 0) fail(`BENCH_ONLY names no scenario "${unknown.join('", "')}"; the scenarios: ${names}`);
  const mode = SMOKE ? 'smoke run (small data; the figures mean nothing), ' : '';
  printHead(`${mode}${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, medians.`);
  for (const scenario of SCENARIOS) if (ONLY.has(scenario.name)) await scenario.run();
}

await main().catch(failOnError);
cleanUp();
