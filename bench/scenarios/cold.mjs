// Cold start: the time from spawning a server to its first 200 to an authenticated listOrders, the project
// against naive, bare Fastify, one server at a time.
import { baseline, project, start } from '../harness/contenders.mjs';
import { seeded } from '../harness/lifecycle.mjs';
import { median, ratio, report } from '../harness/report.mjs';
import { ROUNDS, SMOKE } from '../harness/settings.mjs';

// The project is started first, alone: the bench's tests make it fail at start, and nothing else may fail
// before it.
const CONTENDERS = [project(), baseline('naive')];
const COLD_ROUNDS = SMOKE ? ROUNDS : Math.max(ROUNDS, 5);

export default {
  name: 'cold',
  async run() {
    const { path, key } = await seeded(100);
    const times = { project: [], naive: [] };
    for (let round = 0; round < COLD_ROUNDS; round++) {
      for (const declared of round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()) {
        const contender = await start(declared, path, key);
        times[contender.kind].push(contender.coldStartMs);
        contender.stop();
      }
    }
    const projectMs = median(times.project);
    const naiveMs = median(times.naive);
    report([
      'cold start to first 200',
      `${projectMs.toFixed(0)} ms`,
      `bare Fastify ${naiveMs.toFixed(0)} ms`,
      `${ratio(projectMs, naiveMs)} (≤ 1.5×)`,
    ]);
  },
};
