// Node 20's process.nextTick makes each tick an object literal with two symbol keys, and V8 keeps the
// feedback of such a key monomorphic only while it sees one map: after a second, every tick is built by a
// call into V8's runtime, for the life of the process. The server's start-up left it so (its first ticks
// come spread over the loading of every module), and Node's streams make about fifteen ticks per request:
// a tick took 220 ns in the server instead of 25, and a listOrders request a third more instructions
// (docs/performance.md). A thousand ticks in a row, before the server's modules are loaded, settle the
// feedback on one map; two hundred did not.
const TICKS = 5_000;

export function settleNextTickFeedback(): void {
  const nothing = () => {};
  for (let tick = 0; tick < TICKS; tick++) process.nextTick(nothing);
}
