// The seed of a run's generated inputs (fast-check), which each test that generates them puts in its title,
// so that any run, passed, failed or stopped, can be replayed: FUZZ_SEED gives it, and with FUZZ_PATH the
// path to the failing case that fast-check printed, the case alone. Without FUZZ_SEED each run takes a new one.
import { randomInt } from 'node:crypto';

function givenSeed(): number | undefined {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given === '') return undefined;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be a whole number, not ${given}`);
  return seed;
}

export const FUZZ_SEED = givenSeed() ?? randomInt(2 ** 31);

/** fast-check's parameters that replay a run: its seed, and the path to one case when FUZZ_PATH gives it. */
export const replay = {
  seed: FUZZ_SEED,
  ...(process.env.FUZZ_PATH !== undefined && process.env.FUZZ_PATH !== '' && { path: process.env.FUZZ_PATH }),
};
