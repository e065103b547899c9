import { randomUUID } from 'node:crypto';
import { ConcurrencyError, eventSchemas, type Clock, type DomainEvent, type EventMetadata, type EventSchemas, type NewEvent, type RecordedEvent } from '@gensvc/kernel';
import { CheckpointStore, EventStore, expectationMet, type AppendOptions, type AppendResult, type ReadAllOptions } from '../event-store.port';

/** An event as the log keeps it: data and metadata as JSON text, so every read hands out a fresh copy. */
interface StoredEvent {
  readonly position: bigint;
  readonly id: string;
  readonly stream: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

/**
 * The storage that in-memory event stores share, as connections share one SQLite file: every
 * store opened on one log sees the others' events (by reading; only its own appends wake its
 * `onAppended` listeners, as with another process's writes). Positions start at 1 and follow
 * each other.
 */
export class InMemoryEventLog {
  readonly events: StoredEvent[] = [];
  readonly streams = new Map<string, StoredEvent[]>();
  readonly ids = new Set<string>();
}

export interface InMemoryEventStoreOptions {
  /** Reads lift `data` to the current versions of these schemas. Default: the kernel's `eventSchemas`. */
  readonly schemas?: EventSchemas;
  /** The storage to share with other stores. Default: a log of its own. */
  readonly log?: InMemoryEventLog;
  /** Stamps `occurredAt` of events appended without one. Default: the wall clock. */
  readonly clock?: Clock;
}

/**
 * The event store port in memory, for unit tests of command handlers, workflows and the
 * subscription engine: no file, no server. It behaves as the embedded SQLite store does
 * (event-store.contract.ts proves it): appends are atomic and checked against the expected
 * revision, applied in call order (so it has `pipelinedAppends`, and checks
 * `expectedLastEventId` and `after`); data is stored as JSON (an append whose data cannot be
 * serialized stores nothing) and lifted through `schemas` on read.
 */
export class InMemoryEventStore extends EventStore {
  readonly log: InMemoryEventLog;
  private readonly schemas: EventSchemas;
  private readonly clock: Clock | undefined;
  private readonly listeners = new Set<() => void>();
  private closed = false;

  constructor(options: InMemoryEventStoreOptions = {}) {
    super();
    this.log = options.log ?? new InMemoryEventLog();
    this.schemas = options.schemas ?? eventSchemas;
    this.clock = options.clock;
  }

  /** Appends are applied in the order they are called and check `expectedLastEventId` and `after`. */
  override get pipelinedAppends(): boolean {
    return true;
  }

  override async appendToStream<E extends DomainEvent>(stream: string, events: readonly NewEvent<E>[], options: AppendOptions = {}): Promise<AppendResult> {
    this.checkOpen();
    if (events.length === 0) throw new Error('append of no events');
    // Serialized first: an event that cannot be stored fails the whole append before anything is written.
    const occurredAt = (this.clock?.now() ?? new Date()).toISOString();
    const encoded = events.map((e) => ({
      id: e.id ?? randomUUID(),
      type: e.type,
      data: JSON.stringify(e.data),
      metadata: JSON.stringify({ schemaVersion: this.schemas.currentVersion(e.type), occurredAt, ...e.metadata }),
    }));
    const log = this.log;
    const existing = log.streams.get(stream) ?? [];
    const last = existing[existing.length - 1];
    const current = last?.revision ?? -1n;
    const expected = options.expectedRevision ?? 'any';
    if (!expectationMet(expected, current) || (options.expectedLastEventId !== undefined && options.expectedLastEventId !== last?.id)) {
      throw new ConcurrencyError(stream, String(expected), current === -1n ? 'no_stream' : String(current));
    }
    const missing = options.after?.find((id) => !log.ids.has(id));
    if (missing !== undefined) throw new ConcurrencyError(stream, `event ${missing} stored`, 'not stored');
    const ids = new Set<string>();
    for (const e of encoded) {
      if (log.ids.has(e.id) || ids.has(e.id)) throw new Error(`an event with id ${e.id} is stored already`);
      ids.add(e.id);
    }
    const appended = encoded.map((e, i): StoredEvent => ({ ...e, stream, revision: current + 1n + BigInt(i), position: BigInt(log.events.length + i + 1) }));
    log.events.push(...appended);
    log.streams.set(stream, existing.concat(appended));
    for (const e of appended) log.ids.add(e.id);
    const newest = appended[appended.length - 1];
    void Promise.resolve().then(() => {
      for (const listener of [...this.listeners]) listener();
    });
    return { nextExpectedRevision: newest.revision, position: newest.position };
  }

  override async readStream<E extends DomainEvent>(stream: string, options: { fromRevision?: bigint } = {}): Promise<RecordedEvent<E>[]> {
    this.checkOpen();
    const from = options.fromRevision ?? 0n;
    const events = this.log.streams.get(stream) ?? [];
    return events.filter((e) => e.revision >= from).map((e) => this.toRecorded(e)) as RecordedEvent<E>[];
  }

  override async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.checkOpen();
    const after = options.after ?? -1n;
    const max = options.maxCount ?? 1000;
    // Positions are 1-based indexes: the first event after `after` sits at index `after`.
    const start = after < 0n ? 0 : Number(after);
    return this.log.events.slice(start, start + max).map((e) => this.toRecorded(e));
  }

  override async headPosition(): Promise<bigint> {
    this.checkOpen();
    return this.log.events.length ? BigInt(this.log.events.length) : -1n;
  }

  /** Listeners hear of this store's own appends, in a microtask after each. */
  override onAppended(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  override async ping(): Promise<void> {
    this.checkOpen();
  }

  override async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the event store is closed');
  }

  private toRecorded(e: StoredEvent): RecordedEvent {
    const metadata = JSON.parse(e.metadata) as EventMetadata;
    const lifted = this.schemas.lift(e.type, metadata.schemaVersion ?? 1, JSON.parse(e.data));
    return {
      id: e.id,
      streamName: e.stream,
      revision: e.revision,
      position: e.position,
      type: e.type,
      data: lifted.data,
      metadata: lifted.version === metadata.schemaVersion ? metadata : { ...metadata, schemaVersion: lifted.version },
    };
  }
}

/** Reactor checkpoints in memory (a map), for tests of the subscription engine. */
export class InMemoryCheckpointStore extends CheckpointStore {
  readonly positions = new Map<string, bigint>();

  override async load(name: string): Promise<bigint | undefined> {
    return this.positions.get(name);
  }

  override async store(name: string, position: bigint): Promise<void> {
    this.positions.set(name, position);
  }
}
