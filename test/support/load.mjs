// A mixed load of the API's everyday calls through autocannon, for the soak test. Plain JavaScript:
// autocannon has no type declarations of its own.
import autocannon from 'autocannon';

/**
 * Runs `seconds` of listOrders, sendMessage and getPetById (2:2:1) against `baseUrl`, at `rate` requests
 * per second over all connections (as fast as possible when rate is 0).
 * @param {{ baseUrl: string, key: string, seconds: number, connections: number, rate: number }} options
 * @returns {Promise<{ requests: number, perSecond: number, p99Ms: number, errors: number, timeouts: number, non2xx: number }>}
 */
export async function mixedLoad({ baseUrl, key, seconds, connections, rate }) {
  const auth = { Authorization: `Bearer ${key}` };
  const send = {
    method: 'POST',
    path: '/v1/messages',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: 'soak' }),
  };
  const list = { method: 'GET', path: '/v1/store/orders', headers: auth };
  const pet = { method: 'GET', path: '/v1/pets/1', headers: auth };
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    // Seconds. A hang guard: an answer that comes late on a busy machine is still an answer.
    timeout: 60,
    requests: [list, send, pet, list, send],
    ...(rate > 0 && { overallRate: rate }),
  });
  return {
    requests: result.requests.total,
    perSecond: result.requests.average,
    p99Ms: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  };
}
