// How long the reliability tests run. Every run (`npm test`, CI on every Node line) uses the smallest size that
// still exercises each guarantee; `npm run chaos` (CHAOS=1) runs them at full size, to find what is rare.
// Each size's variable overrides both. Each test names its size in its title, so a report says what ran.

/** Each size: every run's, and the full one `npm run chaos` runs; why every run's is enough is beside it. */
export const SIZES = {
  // The server restarts in FULL, EXTRA and NORMAL synchronous mode in turn: twice in each.
  CRASH_ROUNDS: { everyRun: 6, chaos: 300 },
  // Two servers deliver; the kills alternate between them: each is killed once, then the replacement of the first.
  DELIVERY_CRASH_ROUNDS: { everyRun: 3, chaos: 100 },
  // Three servers; the kills go round them: each is killed once, then each one's replacement.
  INSTANCE_KILL_ROUNDS: { everyRun: 6, chaos: 100 },
  // Two windows of load (the soak compares the lowest heap of its second half with its first's).
  SOAK_SECONDS: { everyRun: 20, chaos: 600 },
  // PostgreSQL is stopped fast, then immediate, at least once each however short (a restart every 5 s).
  POSTGRES_SOAK_SECONDS: { everyRun: 10, chaos: 300 },
  // 32 writers, each with its own account, over every process: about 31 messages each, whose order is checked.
  DELIVERY_MESSAGES: { everyRun: 1_000, chaos: 20_000 },
} as const;

export type Size = keyof typeof SIZES;

/** The size `name` runs at: its variable when set, else the full size under CHAOS=1, else every run's. */
export function size(name: Size): number {
  const given = process.env[name];
  if (given !== undefined && given !== '') {
    const value = Number(given);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number from 1 up, not ${given}`);
    return value;
  }
  return process.env.CHAOS === '1' ? SIZES[name].chaos : SIZES[name].everyRun;
}
