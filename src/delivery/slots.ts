// A bound on the attempts one process makes at once: each takes a slot, and waits in line for one when all
// are taken.
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(count: number) {
    this.#free = count;
  }

  /** Resolves with the function that gives the slot back, once one is free. */
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // Handed straight to the next in line, which counts it as taken.
      if (next) next();
      else this.#free += 1;
    };
  }
}
