import type { RecordedEvent } from '@gensvc/kernel';

/**
 * The newest events of the log, parsed once and shared by every reader of this process
 * (projections, reactors, command handlers), so a busy log is not read and parsed again
 * by each of them.
 *
 * Invariant: the tail holds every event of the store with a position in `(from, end]`, in
 * position order. It only grows at its end by whole ranges the writer vouches for (events
 * committed after `end`, read back under the write lock or appended by this process), and
 * forgets from its start when it holds more than `capacity` events. Events are frozen: all
 * readers get the same objects.
 */
/** How many streams found empty are remembered. */
const ABSENT_LIMIT = 10_000;

export class EventTail {
  private events: RecordedEvent[] = [];
  /** Per stream, its events inside the tail, in revision order (a suffix of the stream). */
  private readonly streams = new Map<string, RecordedEvent[]>();
  /** Streams read from the file and found empty, with the tail's end at that time. */
  private readonly absent = new Map<string, bigint>();
  private fromPosition: bigint;
  private endPosition: bigint;

  constructor(
    end: bigint,
    private readonly capacity = 20_000,
  ) {
    this.fromPosition = end;
    this.endPosition = end;
  }

  /** Every event with a position above this (up to `end`) is in the tail. */
  get from(): bigint {
    return this.fromPosition;
  }

  /** Position up to which the tail is complete. */
  get end(): bigint {
    return this.endPosition;
  }

  get size(): number {
    return this.events.length;
  }

  /** Forgets everything: the tail starts empty, complete up to `end`. */
  reset(end: bigint): void {
    this.events = [];
    this.streams.clear();
    this.absent.clear();
    this.fromPosition = end;
    this.endPosition = end;
  }

  /**
   * Extends the tail with the events of `(end, newEnd]`: `events` must be all of them, in
   * position order.
   */
  extend(events: readonly RecordedEvent[], newEnd: bigint): void {
    if (newEnd < this.endPosition) throw new Error(`event tail cannot move back from ${this.endPosition} to ${newEnd}`);
    for (const e of events) {
      if (e.position <= this.endPosition || e.position > newEnd) throw new Error(`event at ${e.position} is outside (${this.endPosition}, ${newEnd}]`);
      this.endPosition = e.position;
      deepFreeze(e);
      this.events.push(e);
      let stream = this.streams.get(e.streamName);
      if (!stream) this.streams.set(e.streamName, (stream = []));
      stream.push(e);
    }
    this.endPosition = newEnd;
    // forget in chunks, not one event per append
    if (this.events.length > this.capacity + Math.min(this.capacity, 1024)) this.evict(this.events.length - this.capacity);
  }

  /** Up to `max` events after `after`, or undefined when the tail does not cover `after`. */
  readAll(after: bigint, max: number): RecordedEvent[] | undefined {
    if (after < this.fromPosition || after >= this.endPosition) return undefined;
    const start = this.indexAfter(after);
    return this.events.slice(start, start + max);
  }

  /**
   * The stream's events from `fromRevision` on, when the tail knows them all (its first
   * event in the tail is at or before `fromRevision`, or is the stream's first); else
   * undefined. The caller must know that no event was committed after `end`.
   */
  readStream(stream: string, fromRevision: bigint): RecordedEvent[] | undefined {
    const events = this.streams.get(stream);
    if (!events) return undefined;
    const first = events[0].revision;
    if (first > fromRevision && first !== 0n) return undefined;
    const skip = fromRevision > first ? Number(fromRevision - first) : 0;
    return events.slice(skip);
  }

  /** Records that `stream` had no event up to the tail's end (a read of the file found none). */
  noteAbsent(stream: string): void {
    if (this.absent.size >= ABSENT_LIMIT) this.absent.clear(); // a cache: starting over is always right
    this.absent.set(stream, this.endPosition);
  }

  /**
   * Whether `stream` is known to have no event up to `end`: it had none when it was noted
   * absent, and the tail holds every event since (none of them of that stream).
   */
  knownAbsent(stream: string): boolean {
    const noted = this.absent.get(stream);
    if (noted === undefined) return false;
    if (noted < this.fromPosition || this.streams.has(stream)) {
      this.absent.delete(stream);
      return false;
    }
    return true;
  }

  private indexAfter(after: bigint): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].position <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private evict(count: number): void {
    const gone = this.events.slice(0, count);
    this.events = this.events.slice(count);
    this.fromPosition = gone[gone.length - 1].position;
    const perStream = new Map<string, number>();
    for (const e of gone) perStream.set(e.streamName, (perStream.get(e.streamName) ?? 0) + 1);
    for (const [name, n] of perStream) {
      const events = this.streams.get(name)!;
      if (events.length === n) this.streams.delete(name);
      else events.splice(0, n);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
