// Preloaded (NODE_OPTIONS=--import) into every process of a bench run by test/scripts/bench.test.ts, it
// plants a fault in the project contender alone (dist/main.js), chosen by BENCH_FAULT:
// - `exit-mid-run`: the process exits at the first request after it has answered one 200 (its probe);
// - `never-answer`: requests are taken and never answered.
import { Server } from 'node:http';

const fault = process.env.BENCH_FAULT;
if (process.argv[1]?.endsWith('/dist/main.js') && fault) {
  const emit = Server.prototype.emit;
  let answered = false;
  Server.prototype.emit = function (event, ...args) {
    if (event !== 'request') return emit.call(this, event, ...args);
    if (fault === 'never-answer') return true;
    if (answered) {
      process.stderr.write('planted fault: the project exits in the middle of a load run\n');
      process.exit(7);
    }
    const [, response] = args;
    response.on('finish', () => {
      if (response.statusCode === 200) answered = true;
    });
    return emit.call(this, event, ...args);
  };
}
