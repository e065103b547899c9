/**
 * Counters shared by every process of the service (rate limits, failed sign-ins): fixed
 * windows of `windowMs` aligned to the Unix epoch. Calls are synchronous and touch only
 * memory; each process reconciles its counts with the shared store in the background
 * (see apps/api/src/rate-limit and docs/security.md), so a count includes the other
 * processes' hits as of the last reconciliation (a fraction of a second) plus this
 * process's own hits since.
 */
export interface CounterState {
  /** Hits in the current window across the processes, as known here. */
  readonly count: number;
  /** Milliseconds until the current window ends (and the count starts again from zero). */
  readonly resetInMs: number;
}

export abstract class SharedCounters {
  /** Counts `n` (default 1) hits of `key` in its current window; returns the state after them. */
  abstract hit(key: string, windowMs: number, n?: number): CounterState;
  /** The state of `key`'s current window without counting. */
  abstract peek(key: string, windowMs: number): CounterState;
  /**
   * Present on counters that reconcile with a shared store in the background: `start` begins
   * that work when the application starts, `stop` ends it and flushes at shutdown. Counters
   * that keep nothing outside the process have neither.
   */
  start?(): void;
  stop?(): Promise<void>;
}
