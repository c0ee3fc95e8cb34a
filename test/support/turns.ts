// The event loop's turns, counted: one each time the loop comes back to its check phase (setImmediate), where
// SQLite's streamed lists read their rows and after the poll phase that accepts connections. A test reads
// what the server did per turn (rows, batches, accepted connections), never how long a turn took.

export interface TurnCount {
  /** The turns counted so far. */
  readonly turn: number;
  stop(): void;
}

export function countTurns(): TurnCount {
  let turn = 0;
  let counting = true;
  const count = () => {
    turn++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    get turn() {
      return turn;
    },
    stop() {
      counting = false;
    },
  };
}
