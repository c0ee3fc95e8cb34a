// Load runs (autocannon) and the rounds that alternate the contenders' runs; the write requests every
// scenario that writes sends.
import autocannon from 'autocannon';
import { described, fail } from './lifecycle.mjs';
import { median } from './report.mjs';
import { CONNECTIONS, ROUNDS, SECONDS, SMOKE, SMOKE_RATE } from './settings.mjs';

/** One load run against `contender`; autocannon's result. Any error answer ends the bench. */
export async function loadResult(contender, path, key, { headers, ...options } = {}) {
  const result = await autocannon({
    url: `${contender.url}${path}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    ...(SMOKE && { overallRate: SMOKE_RATE }),
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
 * Alternates the contenders' runs over the rounds (in the order given, then reversed, and so on), then
 * stops them unless `keep`; the median of each contender's results, by kind.
 */
export async function compare(contenders, run, { keep = false } = {}) {
  const samples = new Map(contenders.map(({ kind }) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) samples.get(contender.kind).push(await run(contender));
  }
  if (!keep) contenders.forEach((contender) => contender.stop());
  return Object.fromEntries([...samples].map(([kind, values]) => [kind, median(values)]));
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

/** Load-run options of sendMessage. */
export const SEND_MESSAGE = {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ message: 'Hello from the benchmark' }),
};
