// The whole list of orders read over HTTP, alone and beside small requests; a command-line tool timed
// against it.
import { execFileSync } from 'node:child_process';
import { peakRssMiB } from './contenders.mjs';
import { described, fail } from './lifecycle.mjs';

/** GET /v1/store/orders (every order) read to its end by one client: its wall time and bytes. */
export async function readWholeList(server, key) {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/store/orders`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  if (response.status !== 200) fail(`${described(server)}\n(the list answered ${response.status})`);
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  return { ms: performance.now() - started, bytes };
}

/**
 * The whole list read by one client, timed; then again while four clients keep asking for `smallPath`, each
 * of whose latencies counts, including the requests held up by the list.
 */
export async function readBigList(server, key, smallPath) {
  const readList = () => readWholeList(server, key);
  const { ms, bytes } = await readList();
  let listing = true;
  const latencies = [];
  const smallClient = async () => {
    while (listing) {
      const sent = performance.now();
      const response = await fetch(`${server.url}${smallPath}`);
      await response.arrayBuffer();
      if (response.status !== 200) fail(`${described(server)}\n(${smallPath} answered ${response.status})`);
      latencies.push(performance.now() - sent);
    }
  };
  const smallClients = Array.from({ length: 4 }, smallClient);
  await readList();
  listing = false;
  await Promise.all(smallClients);
  const p99 = [...latencies].sort((x, y) => x - y)[Math.floor(latencies.length * 0.99)];
  return { ms, bytes, p99, count: latencies.length, rss: peakRssMiB(server.child) };
}

/** The wall time of `command` run to its end, its output thrown away, in ms. */
export function timed(command, args) {
  const started = performance.now();
  execFileSync(command, args, { maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'inherit'] });
  return performance.now() - started;
}
