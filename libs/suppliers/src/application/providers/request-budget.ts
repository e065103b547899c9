import type { LeaseStore } from '@gensvc/event-sourcing';

/**
 * A channel's request budget toward its provider (`requests_per_minute`), shared by all its
 * jobs, its probes and every process on the same stores.
 *
 * Time is cut into slots of `60 000 / rpm` milliseconds; a request may go out only in a
 * slot it claimed, and each slot is claimed by at most one request across the processes (a
 * lease on the slot's key). So no 60-second window ever holds more than `rpm` requests
 * (plus one at its edge), without any process knowing how many others there are. Keys are
 * the slot number modulo `rpm` with a time to live of half a minute, so the lease store
 * holds at most `rpm` keys per channel.
 *
 * In a process, waiting requests form two lanes per channel, new jobs (`submit`) and jobs
 * the provider holds (`follow`: status, list, result, cancel, probe); a single loop claims the
 * current slot and hands it to the first waiter of the lanes in turn, so a burst of new jobs
 * never holds back the results and cancellations of running ones (nor the other way round),
 * and thousands of waiting jobs cost one lease write per slot, not one per job and slot.
 */
export type BudgetLane = 'submit' | 'follow';

type Waiter = { resolve: (slot: number) => void; reject: (err: Error) => void; signal?: AbortSignal; onAbort?: () => void };

export class RequestBudget {
  private readonly slotMs: number;
  private readonly lanes: Record<BudgetLane, Waiter[]> = { submit: [], follow: [] };
  /** The lane served last (the other goes first when both wait). */
  private served: BudgetLane = 'follow';
  private nextSlot = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly leases: LeaseStore,
    private readonly channel: string,
    readonly requestsPerMinute: number,
    private readonly owner: string,
    private readonly now: () => number = Date.now,
  ) {
    this.slotMs = 60_000 / requestsPerMinute;
  }

  /**
   * Resolves when this request may be sent (its slot has come) with the slot's number (time
   * divided by the slot length); rejects when `signal` aborts first.
   */
  take(signal?: AbortSignal, lane: BudgetLane = 'follow'): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      const queue = this.lanes[lane];
      if (signal) {
        waiter.onAbort = () => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      queue.push(waiter);
      this.pump();
    });
  }

  /** Requests waiting in this process. */
  get queued(): number {
    return this.lanes.submit.length + this.lanes.follow.length;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of [...this.lanes.submit.splice(0), ...this.lanes.follow.splice(0)]) w.reject(new Error('the service is stopping'));
  }

  private pump(): void {
    if (this.running || this.timer || !this.queued) return;
    this.running = true;
    void this.claimNext()
      .catch(() => 50) // the lease store failed: try again shortly
      .then((waitMs) => {
        this.running = false;
        if (!this.queued) return;
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, waitMs);
        this.timer.unref?.();
      });
  }

  /** Claims the current (or next) free slot for the first waiter; returns how long to wait before trying again. */
  private async claimNext(): Promise<number> {
    const now = this.now();
    const current = Math.floor(now / this.slotMs);
    const slot = Math.max(current, this.nextSlot);
    if (slot > current) return Math.max(1, slot * this.slotMs - now);
    this.nextSlot = slot + 1;
    const key = `budget:${this.channel}:${slot % this.requestsPerMinute}`;
    // A distinct owner per slot: a lease this process still holds for an earlier slot of the
    // same key is never taken as "already mine".
    const mine = await this.leases.acquire(key, `${this.owner}:${slot}`, 30_000);
    if (mine) {
      const other: BudgetLane = this.served === 'submit' ? 'follow' : 'submit';
      const lane: BudgetLane = this.lanes[other].length ? other : this.served;
      const waiter = this.lanes[lane].shift();
      this.served = lane;
      if (waiter) {
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(slot);
      }
    }
    return Math.max(0, (slot + 1) * this.slotMs - this.now());
  }
}
