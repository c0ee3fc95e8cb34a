// Load runs (autocannon) and the rounds that alternate the contenders' runs; the write requests every
// scenario that writes sends.
import autocannon from 'autocannon';
import { cpuMs } from './contenders.mjs';
import { described, fail } from './lifecycle.mjs';
import { median } from './report.mjs';
import { CONNECTIONS, ROUNDS, SECONDS, SMOKE, SMOKE_RATE } from './settings.mjs';

/** One load run against `contender`; autocannon's result. Any error answer ends the bench. */
export async function loadResult(contender, path, key, { headers, ...options } = {}) {
  // The smoke run counts requests, not seconds: on a machine busy with other work, its one second could
  // pass before a server answered its first request, and leave a row of 0 req/s.
  const rate = options.overallRate ?? SMOKE_RATE;
  const result = await autocannon({
    url: `${contender.url}${path}`,
    connections: CONNECTIONS,
    ...(SMOKE ? { overallRate: rate, amount: Math.ceil(rate * SECONDS) } : { duration: SECONDS }),
    headers: { Authorization: `Bearer ${key}`, ...headers },
    ...options,
  });
  // Figures of error answers would measure the wrong thing.
  if (result.errors > 0 || result.non2xx > 0) {
    const answers = `${result.errors} errors and ${result.non2xx} non-2xx answers`;
    fail(`${described(contender)}\n(${answers} to ${options.method ?? 'GET'} ${path} in a load run)`);
  }
  return result;
}

/** One load run against `contender`; its average req/s. */
export async function load(contender, path, key, options) {
  return (await loadResult(contender, path, key, options)).requests.average;
}

/**
 * One load run against `contender`: its average req/s, and the CPU time its whole process spent per request
 * answered, in µs, in all (`cpuUs`) and in user space (`userCpuUs`). The load generator shares the machine's
 * cores, so the fastest contenders' req/s is partly its own limit, which CPU time per request is not.
 */
export async function loadWithCpu(contender, path, key, options) {
  const before = cpuMs(contender);
  const result = await loadResult(contender, path, key, options);
  const after = cpuMs(contender);
  const perRequest = (part) => ((after[part] - before[part]) * 1000) / result.requests.total;
  return { rps: result.requests.average, cpuUs: perRequest('all'), userCpuUs: perRequest('user') };
}

/**
 * Alternates the contenders' runs over the rounds (in the order given, then reversed, and so on), then
 * stops them unless `keep`; the median of each contender's results, by kind (of each field, for results
 * that are objects, as loadWithCpu's).
 */
export async function compare(contenders, run, { keep = false } = {}) {
  const samples = new Map(contenders.map(({ kind }) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) samples.get(contender.kind).push(await run(contender));
  }
  if (!keep) contenders.forEach((contender) => contender.stop());
  return Object.fromEntries([...samples].map(([kind, values]) => [kind, medianOf(values)]));
}

function medianOf(values) {
  if (typeof values[0] === 'number') return median(values);
  return Object.fromEntries(Object.keys(values[0]).map((field) => [field, median(values.map((value) => value[field]))]));
}

/**
 * `compare`'s results as loadWithCpu gives them, split: each contender's req/s, its CPU µs per request, and
 * the part of them in user space.
 */
export function rpsAndCpu(results) {
  const of = (field) => Object.fromEntries(Object.entries(results).map(([kind, result]) => [kind, result[field]]));
  return { rps: of('rps'), cpuUs: of('cpuUs'), userCpuUs: of('userCpuUs') };
}

/**
 * Orders for the cancel runs. The smoke run's still outnumber what its capped second of cancels can use.
 */
export const CANCELLABLE_ORDERS = SMOKE ? 1_000 : 400_000;

/**
 * Load-run options in which each request cancels the contender's next pending order (1, 2, …, counted
 * across its runs), so that every contender, on its own copy of the orders, does the same writes.
 */
export function cancelRequests(contender) {
  const path = () => {
    contender.cancelled = (contender.cancelled ?? 0) + 1;
    return `/v1/store/orders/${contender.cancelled}`;
  };
  return { requests: [{ method: 'DELETE', setupRequest: (request) => ({ ...request, path: path() }) }] };
}

/** Two servers on one database as one contender of `kind`: loadSpread loads them at once. */
export function serverPair(kind, members) {
  return { kind, members, stop: () => members.forEach((member) => member.stop()) };
}

/** A load run; on a server pair, one on each server at once with half the connections, their req/s summed. */
export async function loadSpread(contender, path, key, options) {
  if (!contender.members) return load(contender, path, key, options);
  const halves = contender.members.map((member) =>
    load(member, path, key, {
      ...options,
      connections: CONNECTIONS / 2,
      ...(SMOKE && { overallRate: SMOKE_RATE / 2 }),
    }),
  );
  return (await Promise.all(halves)).reduce((sum, rps) => sum + rps, 0);
}

/** Load-run options of sendMessage. */
export const SEND_MESSAGE = {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ message: 'Hello from the benchmark' }),
};
