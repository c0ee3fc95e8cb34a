// The turns shared between slices of work and the connections being accepted, on their own: what each turn
// of the event loop runs, counted turn by turn.
import { describe, expect, it } from 'vitest';
import { connectionAccepted, MAX_ACCEPTS_AHEAD, SliceTurns } from '../src/eventLoopTurns.js';

/**
 * The turn in which each of `slices` slices ran, each asking for the next as it runs, over `turns` turns and
 * one more; `acceptsIn(turn)` says whether that turn accepts a connection, before the slices' turn looks.
 */
async function sliceTurns(slices: number, turns: number, acceptsIn: (turn: number) => boolean): Promise<number[]> {
  const sliceTurn = new SliceTurns();
  const ran: number[] = [];
  let turn = 0;
  // Scheduled before the first slice, so it runs first in each turn's check phase, as an accept in the poll
  // phase before it would.
  const everyTurn = () => {
    turn++;
    if (turn <= turns && acceptsIn(turn)) connectionAccepted();
    if (turn <= turns) setImmediate(everyTurn);
  };
  setImmediate(everyTurn);
  const next = () => {
    ran.push(turn);
    if (ran.length < slices) sliceTurn.request(next);
  };
  sliceTurn.request(next);
  // And a turn more, in which no connection is accepted, for a slice asked for in the last.
  while (turn < turns + 1) await new Promise((resolve) => setImmediate(resolve));
  return ran;
}

describe('SliceTurns', () => {
  it('runs one slice a turn, in the order they were asked for', async () => {
    const sliceTurn = new SliceTurns();
    const order: string[] = [];
    for (const name of ['a', 'b', 'c']) sliceTurn.request(() => order.push(name));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a']);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('runs no slice in a turn that accepted a connection, and a slice every turn once none is accepted', async () => {
    const ran = await sliceTurns(20, 30, (turn) => turn <= 10);
    expect(ran).toEqual(Array.from({ length: 20 }, (_, i) => 11 + i));
  });

  it(`runs a slice at least once every ${MAX_ACCEPTS_AHEAD + 1} turns while connections never stop arriving`, async () => {
    const ran = await sliceTurns(4, 4 * (MAX_ACCEPTS_AHEAD + 1), () => true);
    expect(ran).toEqual([1, 2, 3, 4].map((slice) => slice * (MAX_ACCEPTS_AHEAD + 1)));
  });
});
