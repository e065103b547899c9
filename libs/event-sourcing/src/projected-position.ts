import { ProjectionLagError } from './projection-lag.error';

/**
 * The position every projection has applied, and who waits for it: callers of `waitFor`
 * (read-your-writes) and the listeners of `onProjected`. The projection loops move `value`
 * and call `release`.
 */
export class ProjectedPosition {
  /** Position every projection has applied (-1n before any). */
  value = -1n;
  private readonly waiters = new Set<{ position: bigint; resolve: () => void }>();
  /** Called when `value` moves, and the position they were last called with. */
  private readonly listeners = new Set<(position: bigint) => void>();
  private announced = -1n;

  /** Resolves once `value` reached `position`; rejects with `ProjectionLagError` when it has not within `timeoutMs`. */
  wait(position: bigint, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const w = {
        position,
        resolve: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(new ProjectionLagError(position, this.value, timeoutMs));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }

  /** Calls `listener` each time `value` moved (see `SubscriptionEngine.onProjected`); returns the unsubscribe function. */
  onProjected(listener: (position: bigint) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves the waiters `value` reached, and tells the listeners when it moved. */
  release(): void {
    for (const w of [...this.waiters]) if (this.value >= w.position) w.resolve();
    if (this.value === this.announced) return;
    this.announced = this.value;
    for (const listener of this.listeners) listener(this.value);
  }
}
