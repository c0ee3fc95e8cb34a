// The seam's part for the request quotas (http/sharedQuota.ts): a count per quota, subject and window,
// shared by every process that shares it, which a process adds to only when it takes a block of units. A
// database that processes on several machines share keeps it (PostgreSQL); otherwise the count stays on
// the machine (http/quotaCount.ts).

/** One quota's window for one subject (a key's id, a client's address), as every process shares it. */
export interface QuotaLeaseRequest {
  quota: 'per-key' | 'auth-failures';
  subject: string;
  /** When the window began, in milliseconds since the epoch, and how long it lasts. */
  windowStart: number;
  windowSeconds: number;
  /** Units this process would take for itself now. */
  want: number;
  /** Units this process already spent without a lease (at most one per window): counted whatever is left. */
  spent: number;
  limit: number;
  /** Which process asks, so that the store can tell how many share the quotas. */
  processId: string;
}

export interface QuotaLease {
  /** Units granted to the process, at most `want`: fewer once the window's count reaches the limit. */
  granted: number;
  /** The window's count once this lease is taken, every process's leases and spent units included. */
  used: number;
  /** How many processes took a lease in this window or the one before: the quota's sharers. */
  processes: number;
}

/** The shared count of the request quotas: a process adds to it only when it takes a block of units. */
export interface QuotaStore {
  lease(request: QuotaLeaseRequest): Promise<QuotaLease>;
}
