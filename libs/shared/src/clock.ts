/** Time as a port, so deciders and tests never read the wall clock directly. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock tests move by hand. */
export class FixedClock extends Clock {
  constructor(private current: Date = new Date('2026-01-01T00:00:00.000Z')) {
    super();
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(date: Date): void {
    this.current = new Date(date.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** RFC 3339 UTC with milliseconds. */
export const isoTime = (d: Date): string => d.toISOString();
