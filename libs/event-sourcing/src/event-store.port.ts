import type { DomainEvent, NewEvent, RecordedEvent } from '@gensvc/kernel';

/**
 * Expected revision of a stream before an append: the 0-based revision of its last event,
 * `'no_stream'` (must not exist), `'stream_exists'`, or `'any'` (no check).
 */
export type ExpectedRevision = bigint | 'no_stream' | 'stream_exists' | 'any';

/** Whether a stream whose last revision is `current` (-1n: no stream) meets `expected`. */
export function expectationMet(expected: ExpectedRevision, current: bigint): boolean {
  return (
    expected === 'any' ||
    (expected === 'no_stream' && current === -1n) ||
    (expected === 'stream_exists' && current >= 0n) ||
    (typeof expected === 'bigint' && expected === current)
  );
}

export interface AppendOptions {
  readonly expectedRevision?: ExpectedRevision;
  /**
   * Also expected: the id of the stream's last event. A pipelined append (decided on top of an
   * append of this process not committed yet) names that append's last event, so it fails
   * with a `ConcurrencyError` unless exactly that append went in before it. Only for stores
   * with `pipelinedAppends`.
   */
  readonly expectedLastEventId?: string;
  /**
   * Ids of events (of any stream) that must be stored before this append: committed earlier,
   * or earlier in the same group commit. A step of a workflow queued before the step it
   * follows has committed names that step's event, and fails with a `ConcurrencyError` if it
   * did not go in. Only for stores with `pipelinedAppends`.
   */
  readonly after?: readonly string[];
}

export interface AppendResult {
  /** Revision of the last appended event: the expected revision of the next append. */
  readonly nextExpectedRevision: bigint;
  /** Global position of the last appended event. */
  readonly position: bigint;
}

export interface ReadAllOptions {
  /** Exclusive: events with a position greater than this. Default: from the start. */
  readonly after?: bigint;
  readonly maxCount?: number;
}

/**
 * Event store port. Appends are atomic per call (all events or none) and optimistic
 * (`expectedRevision`); a violated expectation raises `ConcurrencyError`.
 * Reads return events with `data` lifted to the current schema version.
 */
export abstract class EventStore {
  /**
   * Whether appends are applied in the order they were called (within this process) and
   * `expectedLastEventId` and `after` are checked, so that a command may be decided on top of
   * an append still in flight (see `CommandHandler`, `startCommand`). False unless a store says so.
   */
  get pipelinedAppends(): boolean {
    return false;
  }

  abstract appendToStream<E extends DomainEvent>(streamName: string, events: readonly NewEvent<E>[], options?: AppendOptions): Promise<AppendResult>;

  /** All events of one stream in order; empty when the stream does not exist. */
  abstract readStream<E extends DomainEvent>(streamName: string, options?: { fromRevision?: bigint }): Promise<RecordedEvent<E>[]>;

  /** Events of all streams in global order. */
  abstract readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;

  /** Position of the newest event, or -1n when the store is empty. */
  abstract headPosition(): Promise<bigint>;

  /**
   * Calls `listener` (soon) after events are appended, so subscriptions need not wait for
   * their next poll. A hint only: subscriptions still poll for writes of other processes.
   */
  abstract onAppended(listener: () => void): () => void;

  /** Cheap liveness check for readiness probes. */
  abstract ping(): Promise<void>;

  abstract close(): Promise<void>;
}

/**
 * Durable checkpoints for reactors (sagas, process managers) that must not redo their work
 * after a restart. Projections keep their checkpoints with their data in the read store.
 */
export abstract class CheckpointStore {
  abstract load(name: string): Promise<bigint | undefined>;
  abstract store(name: string, position: bigint): Promise<void>;
  /**
   * Present on a store that holds a connection of its own (a dedicated SQLite connection),
   * which the owner closes at shutdown; absent on one that shares its client with another
   * store (MongoDB), closed with that store.
   */
  close?(): Promise<void>;
}
