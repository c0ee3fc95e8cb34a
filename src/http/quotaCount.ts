// The request quotas' count where no database keeps it (SQLite's case, store/quotas.ts): in this process's
// memory, or, for the workers of one machine, in their primary's (workers.ts), which each asks over the
// cluster's channel. A lease is counted as a database's would be.
import type { QuotaLease, QuotaLeaseRequest, QuotaStore } from '../store/quotas.js';
import { isMessage, type QuotaLeased, type QuotaLeaseWanted } from '../workerMessages.js';

/** The count in this process: the process's own quotas, or, in the primary, every worker's. */
export class MemoryQuotaCount implements QuotaStore {
  /** Each window's count by quota and subject, for the current windows only. */
  #windows = new Map<string, number>();
  #windowStart = -1;
  /** When each process last took a lease. */
  readonly #seen = new Map<string, number>();

  lease(request: QuotaLeaseRequest): Promise<QuotaLease> {
    return Promise.resolve(this.leaseNow(request));
  }

  leaseNow({ quota, subject, windowStart, windowSeconds, want, spent, limit, processId }: QuotaLeaseRequest): QuotaLease {
    if (windowStart > this.#windowStart) {
      this.#windowStart = windowStart;
      this.#windows = new Map();
    }
    const key = `${quota}\n${subject}\n${windowStart}`;
    const before = this.#windows.get(key) ?? 0;
    const granted = Math.min(want, Math.max(0, limit - before - spent));
    const used = before + spent + granted;
    this.#windows.set(key, used);
    this.#seen.set(processId, Math.max(this.#seen.get(processId) ?? 0, windowStart));
    let processes = 0;
    for (const [id, seenAt] of this.#seen) {
      if (seenAt >= windowStart - windowSeconds * 1000) processes++;
      else this.#seen.delete(id);
    }
    return { granted, used, processes };
  }
}

/** A worker's count: its primary's, asked over the cluster's channel; a lease fails if the primary is gone. */
export function primaryQuotaCount(): QuotaStore {
  const waiting = new Map<number, { resolve(lease: QuotaLease): void; reject(error: Error): void }>();
  let last = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage<QuotaLeased>(message, 'quotaLeased')) return;
    waiting.get(message.quotaLeased)?.resolve(message.lease);
    waiting.delete(message.quotaLeased);
  });
  process.on('disconnect', () => {
    for (const lease of waiting.values()) lease.reject(new Error('the primary is gone'));
    waiting.clear();
  });
  return {
    lease: (request) =>
      new Promise<QuotaLease>((resolve, reject) => {
        if (!process.connected) return reject(new Error('the primary is gone'));
        const id = (last += 1);
        waiting.set(id, { resolve, reject });
        const wanted: QuotaLeaseWanted = { quotaLeaseWanted: id, request };
        process.send?.(wanted, undefined, undefined, (error: Error | null) => {
          if (!error) return;
          waiting.delete(id);
          reject(error);
        });
      }),
  };
}
