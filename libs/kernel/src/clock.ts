/** Time as a port, so deciders and tests never read the wall clock directly. */
export abstract class Clock {
  abstract now(): Date;

  /**
   * Calls `listener` when the clock jumps (a test clock moved by hand), so that timers set
   * from its readings can be re-armed; a real clock never calls it. Returns the unsubscribe.
   */
  onJump(listener: () => void): () => void {
    void listener;
    return () => undefined;
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock tests move by hand. */
export class FixedClock extends Clock {
  private readonly listeners = new Set<() => void>();

  constructor(private current: Date = new Date('2026-01-01T00:00:00.000Z')) {
    super();
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(date: Date): void {
    this.current = new Date(date.getTime());
    this.jumped();
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
    this.jumped();
  }
  override onJump(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  private jumped(): void {
    for (const l of [...this.listeners]) l();
  }
}

/** RFC 3339 UTC with milliseconds. */
export const isoTime = (d: Date): string => d.toISOString();
