// How the bench ends, either way: the contenders still running stopped, what it made removed, and on a
// failure the reason on stderr and exit status 1.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { seedDatabase } from '../seed.mjs';

/** The contenders still running: a failure stops them all before the bench exits. */
export const running = new Set();
/** What the bench removes when it ends: seeded files, PostgreSQL databases, the cluster that holds them. */
const cleanups = [];

/**
 * Runs `cleanup` when the bench ends; with `first`, before those already registered (a database before the
 * cluster it is on). Synchronous, since `fail` runs it just before the process exits.
 */
export function onEnd(cleanup, { first = false } = {}) {
  if (first) cleanups.unshift(cleanup);
  else cleanups.push(cleanup);
}

export function cleanUp() {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

/** A database file of `orderCount` orders (seed.mjs), its folder removed when the bench ends. */
export async function seeded(orderCount, options) {
  const seed = await seedDatabase(orderCount, options);
  onEnd(() => rmSync(dirname(seed.path), { recursive: true, force: true }));
  return seed;
}

export const described = (contender) =>
  `contender "${contender.kind}"; its stderr:\n${contender.stderr.trim() || '(empty)'}`;

/** Ends the bench loudly: the reason on stderr, every contender stopped, exit status 1. */
export function fail(reason) {
  for (const contender of running) contender.stop();
  cleanUp();
  console.error(`bench failed: ${reason}`);
  process.exit(1);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An error thrown while a contender is dying (a fetch cut off, say) is reported as that contender's death,
 * with its stderr, once its exit is seen; any other error as itself.
 */
export async function failOnError(error) {
  const exits = [...running].map(({ child }) => new Promise((resolve) => child.once('close', resolve)));
  await Promise.race([Promise.any(exits), sleep(1_000)]).catch(() => {});
  fail(error?.stack ?? String(error));
}
