/** What a replay reports: on the CLI's progress bar and at `GET /admin/replays/{id}`. */
export interface ReplayResult {
  readonly projections: string[];
  readonly events: number;
  readonly seconds: number;
}

export type ReplayStatus = 'running' | 'succeeded' | 'failed';
/** rebuilding: events into staging; copying: staged documents into fresh collections; switching: tail and atomic switch. */
export type ReplayPhase = 'rebuilding' | 'copying' | 'switching' | 'done';

export interface ReplayState {
  readonly id: string;
  readonly status: ReplayStatus;
  readonly phase: ReplayPhase;
  readonly projections: string[];
  readonly events_done: number;
  /** Events to replay (an estimate while running: new events may still arrive). */
  readonly events_total: number;
  readonly events_per_second: number;
  /** Seconds left at the current rate; null when unknown. */
  readonly eta_seconds: number | null;
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly seconds: number;
  readonly result: ReplayResult | null;
  readonly error: { code: string; message: string } | null;
}

/** Rate and ETA from events done so far (pure, so it is unit-tested). */
export function rateAndEta(done: number, total: number, elapsedSeconds: number): { rate: number; eta: number | null } {
  if (elapsedSeconds <= 0 || done <= 0) return { rate: 0, eta: null };
  const rate = done / elapsedSeconds;
  return { rate: Math.round(rate), eta: Math.max(0, Math.round(((Math.max(total, done) - done) / rate) * 10) / 10) };
}

/**
 * Estimated number of events up to `head`, from the events counted up to `position`. The
 * embedded store's positions are dense (1, 2, 3, ...), so the head is the count there; for stores
 * with sparse positions (EventStoreDB commit positions) it extrapolates.
 */
export function estimateTotal(done: number, first: bigint | undefined, position: bigint | undefined, head: bigint): number {
  if (head < 0n) return done;
  if (first === undefined || position === undefined || position <= first) return Math.max(done, Number(head));
  const perPosition = done / (Number(position - first) + 1);
  return Math.max(done, Math.round(perPosition * (Number(head - first) + 1)));
}
