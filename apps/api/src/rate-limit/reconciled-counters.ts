import type { Logger } from 'pino';
import { SharedCounters, type CounterState } from '@gensvc/http';
import type { CounterBackend, CounterDelta } from './counter-backend';

interface Entry {
  readonly key: string;
  readonly windowStart: number;
  readonly windowMs: number;
  /** The shared total at the last reconciliation (including this process's hits sent then). */
  base: number;
  /** Hits of this process not yet sent. */
  pending: number;
  /** Hits being sent right now. */
  inflight: number;
}

/**
 * SharedCounters kept in memory and reconciled with a CounterBackend every `intervalMs`:
 * a hit is a map update (no I/O on the request path); the background flush adds each
 * window's new hits to the shared store in one batch and reads back the totals, which
 * include the other processes' hits. Between two flushes a process sees its own hits at
 * once and the others' up to one interval late, so N processes together can admit at most
 * about N × (their rate × interval) more than a limit before all of them refuse.
 */
export class ReconciledCounters extends SharedCounters {
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastPurge = 0;

  constructor(
    private readonly backend: CounterBackend,
    private readonly logger: Logger,
    private readonly intervalMs = 200,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  override start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  override async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    await this.backend.close();
  }

  hit(key: string, windowMs: number, n = 1): CounterState {
    const e = this.entry(key, windowMs);
    e.pending += n;
    return this.state(e);
  }

  peek(key: string, windowMs: number): CounterState {
    return this.state(this.entry(key, windowMs));
  }

  /** Sends the new hits and refreshes the totals of every live window (one batch). */
  flush(): Promise<void> {
    this.flushing ??= this.doFlush().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async doFlush(): Promise<void> {
    const now = this.now();
    const live: Entry[] = [];
    for (const [id, e] of this.entries) {
      if (e.windowStart + e.windowMs <= now) this.entries.delete(id);
      else live.push(e);
    }
    if (live.length) {
      const deltas: CounterDelta[] = live.map((e) => {
        e.inflight = e.pending;
        e.pending = 0;
        return { key: e.key, windowStart: e.windowStart, delta: e.inflight, expiresAt: e.windowStart + e.windowMs };
      });
      try {
        const totals = await this.backend.add(deltas);
        live.forEach((e, i) => {
          e.base = totals[i];
          e.inflight = 0;
        });
      } catch (err) {
        for (const e of live) {
          e.pending += e.inflight;
          e.inflight = 0;
        }
        this.logger.warn({ err }, 'rate-limit counters: reconciliation with the shared store failed; counting locally meanwhile');
      }
    }
    if (now - this.lastPurge > 60_000) {
      this.lastPurge = now;
      await this.backend.purge(now).catch((err: unknown) => this.logger.warn({ err }, 'rate-limit counters: purge failed'));
    }
  }

  private entry(key: string, windowMs: number): Entry {
    const windowStart = Math.floor(this.now() / windowMs) * windowMs;
    const id = `${windowMs}|${windowStart}|${key}`;
    let e = this.entries.get(id);
    if (!e) {
      e = { key: `${windowMs}|${key}`, windowStart, windowMs, base: 0, pending: 0, inflight: 0 };
      this.entries.set(id, e);
    }
    return e;
  }

  private state(e: Entry): CounterState {
    return { count: e.base + e.inflight + e.pending, resetInMs: Math.max(0, e.windowStart + e.windowMs - this.now()) };
  }
}
