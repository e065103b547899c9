/**
 * Bounded concurrency, overall and per key (endpoint), first come first served: a slow
 * receiver holds at most `perKey` slots, so it cannot stall deliveries to others.
 */
export class Limiter {
  private active = 0;
  private readonly perKeyActive = new Map<string, number>();
  private readonly waiting: { key: string; grant: () => void }[] = [];

  constructor(
    private readonly total: () => number,
    private readonly perKey: () => number,
  ) {}

  acquire(key: string): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({ key, grant: () => resolve(this.releaser(key)) });
      this.pump();
    });
  }

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const n = (this.perKeyActive.get(key) ?? 1) - 1;
      if (n > 0) this.perKeyActive.set(key, n);
      else this.perKeyActive.delete(key);
      this.pump();
    };
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.active < this.total(); ) {
      const w = this.waiting[i];
      const used = this.perKeyActive.get(w.key) ?? 0;
      if (used >= this.perKey()) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.active++;
      this.perKeyActive.set(w.key, used + 1);
      w.grant();
    }
  }
}
