/**
 * Where the processes' counters meet (the shared store): adds each process's new hits and
 * answers the totals. Implementations: SQLite in DATA_DIR (embedded), MongoDB (MONGO_URL).
 */
export interface CounterDelta {
  readonly key: string;
  /** Start of the window, ms since the epoch. */
  readonly windowStart: number;
  readonly delta: number;
  /** When the row may be deleted (the window's end). */
  readonly expiresAt: number;
}

export abstract class CounterBackend {
  /** Adds the deltas (0 for a pure read) and returns the total of each (key, window), in order. */
  abstract add(deltas: readonly CounterDelta[]): Promise<number[]>;
  /** Deletes counters whose window ended before `now`. */
  abstract purge(now: number): Promise<void>;
  abstract close(): Promise<void>;
}
