// Node 20's process.nextTick makes each tick an object literal with two symbol keys, and V8 keeps the
// feedback of such a key monomorphic only while it sees one map: after a second, every tick is built by a
// call into V8's runtime, for the life of the process. A server's start-up leaves it so (its first ticks come
// spread over the loading of every module), and Node's streams make many ticks per request. Ticks in a row,
// before the server's modules are loaded, settle the feedback on one map; docs/performance.md has the
// counts, and how many are enough.
const TICKS = 5_000;

function settleNextTickFeedback(): void {
  const nothing = () => {};
  for (let tick = 0; tick < TICKS; tick++) process.nextTick(nothing);
}

/**
 * Runs the servers (workers.ts) with the feedback settled: every way of starting them comes here, since
 * their modules must be loaded only after it, and so are imported, not named above.
 */
export async function runServersSettled(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  settleNextTickFeedback();
  const { runServers } = await import('./workers.js');
  await runServers(env);
}
