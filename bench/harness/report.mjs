// The bench's output: a Markdown table of medians and ratios, one row per figure.
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

/** The table's head. */
export function printHead(line) {
  console.log(`${line}\n`);
  console.log('| Scenario | Project | Baselines | Ratio (target) |');
  console.log('|---|---|---|---|');
}

/** Prints one row of the table: its four cells. */
export function report(row) {
  console.log(`| ${row.join(' | ')} |`);
}

/**
 * How much less CPU per request `contender` spends than `baseline` (the baseline's over the contender's, as
 * a speed); a smoke run's few requests can cost less than one tick of the CPU clock.
 */
export function cpuRatio(cpuUs, baseline, contender) {
  return cpuUs[contender] > 0 ? ratio(cpuUs[baseline], cpuUs[contender]) : '— (under a tick)';
}
