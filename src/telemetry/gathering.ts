// The primary's part of /metrics with several workers (WORKERS>1). The worker a scrape reaches asks the
// primary; the primary asks every worker for its own metrics, adds their counters and histograms up, and
// answers with the sum, which is the same whichever worker asked. A worker that exits takes its counts
// with it: its last answer is carried over into every later sum, so no counter ever goes back. A worker
// that does not answer in time is counted by its last answer, so a scrape never waits on it for long.
import type { MetricsGathered, MetricsWanted, Snapshot, SnapshotWanted } from '../workerMessages.js';
import { isMessage } from '../workerMessages.js';
import { FamilySum, sideBySide } from './familySum.js';

/**
 * How long a gathering waits for a worker that is busy or stuck. A hang guard, well within a Prometheus
 * scrape's default time-out (10 s), and far beyond what a worker's answer takes on a busy machine.
 */
export const SNAPSHOT_WAIT_MS = 5_000;

/** What the gathering needs of a cluster worker; a node:cluster Worker is one. */
export interface GatheredWorker {
  isConnected(): boolean;
  send(message: SnapshotWanted | MetricsGathered, callback: (error: Error | null) => void): boolean;
}

interface Member {
  /** The worker's place, 1 to WORKERS, which its replacement takes over: the `worker` label. */
  slot: number;
  /** The worker's last answer. */
  last: Snapshot | undefined;
  /** The gatherings waiting for its answer, by number. */
  waiting: Map<number, () => void>;
}

export class MetricsGathering {
  /** The counts of the workers that exited, as they last gave them. */
  readonly #carried = new FamilySum();
  readonly #members = new Map<GatheredWorker, Member>();
  readonly #waitMs: number;
  #gatherings = 0;

  constructor({ waitMs = SNAPSHOT_WAIT_MS } = {}) {
    this.#waitMs = waitMs;
  }

  /** A worker that serves from now on; it is asked for its metrics at every scrape. */
  joined(worker: GatheredWorker, slot: number): void {
    this.#members.set(worker, { slot, last: undefined, waiting: new Map() });
  }

  /** A worker that exited: its last counts are carried over, and no gathering waits for it any longer. */
  left(worker: GatheredWorker): void {
    const member = this.#members.get(worker);
    if (!member) return;
    this.#members.delete(worker);
    if (member.last) this.#carried.add(member.last.service);
    for (const done of member.waiting.values()) done();
  }

  /** Takes a worker's message if it is about metrics; false if it is not. */
  heard(worker: GatheredWorker, message: unknown): boolean {
    if (isMessage<MetricsWanted>(message, 'metricsWanted')) {
      void this.#answer(worker, message.metricsWanted);
      return true;
    }
    if (isMessage<Snapshot>(message, 'snapshot')) {
      // One that left already is counted by the answer before: a late one would count it twice.
      const member = this.#members.get(worker);
      if (member) {
        member.last = message;
        member.waiting.get(message.snapshot)?.();
      }
      return true;
    }
    return false;
  }

  /** The service's metrics now: its counters and histograms summed, each worker's process metrics. */
  async gather(): Promise<Omit<MetricsGathered, 'metricsGathered'>> {
    const gathering = (this.#gatherings += 1);
    await Promise.all([...this.#members].map(([worker, member]) => this.#askFor(worker, member, gathering)));
    const sum = this.#carried.copy();
    const processes: { worker: string; families: Snapshot['process'] }[] = [];
    for (const { slot, last } of this.#members.values()) {
      if (!last) continue;
      sum.add(last.service);
      processes.push({ worker: String(slot), families: last.process });
    }
    return { service: sum.families(), process: sideBySide(processes) };
  }

  async #answer(worker: GatheredWorker, scrape: number): Promise<void> {
    const gathered: MetricsGathered = { metricsGathered: scrape, ...(await this.gather()) };
    // One that exited meanwhile has no scrape left to answer.
    if (worker.isConnected()) worker.send(gathered, () => {});
  }

  /** Resolves once the worker answered, left, could not be asked, or took too long. */
  #askFor(worker: GatheredWorker, member: Member, gathering: number): Promise<void> {
    if (!worker.isConnected()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        member.waiting.delete(gathering);
        resolve();
      };
      const timer = setTimeout(done, this.#waitMs);
      member.waiting.set(gathering, done);
      worker.send({ snapshotWanted: gathering }, (error) => {
        if (error) done();
      });
    });
  }
}
