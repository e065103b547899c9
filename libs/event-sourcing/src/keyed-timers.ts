/**
 * One pending wake-up per key (a job, a delivery): `schedule(key, delayMs)` keeps whichever of
 * the pending and the new time is earlier, and a wait longer than `maxSleepMs` fires after
 * `maxSleepMs` instead (the callee looks and schedules again), which bounds the effect of a
 * step of the wall clock. Timers do not hold the process open.
 */
export class KeyedTimers {
  private readonly slots = new Map<string, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly fire: (key: string) => void,
    private readonly maxSleepMs = 60_000,
  ) {}

  schedule(key: string, delayMs = 0): void {
    const at = Date.now() + Math.max(0, delayMs);
    const existing = this.slots.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.slots.delete(key);
        this.fire(key);
      },
      Math.min(Math.max(0, at - Date.now()), this.maxSleepMs),
    );
    timer.unref();
    this.slots.set(key, { at, timer });
  }

  /** Drops the key's pending wake-up, if any. */
  cancel(key: string): void {
    const slot = this.slots.get(key);
    if (slot) clearTimeout(slot.timer);
    this.slots.delete(key);
  }

  /** Moves every pending wake-up to now (the clock jumped). */
  fireAllNow(): void {
    for (const key of [...this.slots.keys()]) this.schedule(key, 0);
  }

  /** Drops every pending wake-up. */
  clear(): void {
    for (const slot of this.slots.values()) clearTimeout(slot.timer);
    this.slots.clear();
  }

  /** Keys with a pending wake-up. */
  get size(): number {
    return this.slots.size;
  }

  /** When the key's pending wake-up is due (`Date.now()` time, before the `maxSleepMs` bound), if it has one. */
  dueAt(key: string): number | undefined {
    return this.slots.get(key)?.at;
  }
}
