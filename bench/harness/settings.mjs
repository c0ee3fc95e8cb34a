// The bench's settings, read once from the environment (run.mjs says what each one does).
import { fileURLToPath } from 'node:url';

/** The checkout's root, with a trailing slash. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
export const SMOKE = process.env.BENCH_SMOKE === '1';
export const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMOKE ? 1 : 5));
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (SMOKE ? 1 : 3));
export const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS ?? 30_000);
export const CONNECTIONS = SMOKE ? 4 : 50;
/** The smoke run's load is capped (requests per second per run), so that it costs the suite little CPU. */
export const SMOKE_RATE = 100;
