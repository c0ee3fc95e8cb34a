// The event loop's turns, shared between work done a slice a turn (a streamed list's rows, which SQLite
// reads synchronously) and the connections waiting to be accepted. libuv accepts at most one connection per
// turn of the loop (libuv/libuv#3696, in every Node.js this server runs on), so a slice run in a turn delays
// every connection still waiting by as much: clients that connected at once were accepted a slice apart, and
// a health probe's connection queued behind them waited for a slice per connection before its own (issue
// 40). So a turn in which a connection was accepted runs no slice, and the next turn comes at once, since a
// slice waiting keeps the loop from blocking in its poll: a burst of connections is accepted at the pace of
// turns that do little else. Connections that never stop arriving slow the slices down, and never stop
// them (MAX_ACCEPTS_AHEAD).

/** The most turns in a row that run no slice because each accepted a connection. */
export const MAX_ACCEPTS_AHEAD = 32;

/** Every connection accepted by this process's listeners so far; the event loop is the process's. */
let accepted = 0;

/** Tells the turns that a listener has just accepted a connection (http/connections.ts, for each). */
export function connectionAccepted(): void {
  accepted += 1;
}

/** Slices of work, run one a turn in the order they were asked for, behind the connections being accepted. */
export class SliceTurns {
  readonly #waiting: (() => void)[] = [];
  #scheduled = false;
  #acceptedSeen = accepted;
  #yieldedInARow = 0;

  /** Runs `slice` in a coming turn, alone. */
  request(slice: () => void): void {
    this.#waiting.push(slice);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      // A slice handed on may ask for the next one at once: that request waits for a later turn.
      if (!this.#yieldsToConnections()) this.#waiting.shift()?.();
      this.#schedule();
    });
  }

  /** Whether this turn accepted a connection (it runs in the turn's check phase, after the accepts). */
  #yieldsToConnections(): boolean {
    const acceptedThisTurn = accepted !== this.#acceptedSeen;
    this.#acceptedSeen = accepted;
    if (acceptedThisTurn && this.#yieldedInARow < MAX_ACCEPTS_AHEAD) {
      this.#yieldedInARow += 1;
      return true;
    }
    this.#yieldedInARow = 0;
    return false;
  }
}
