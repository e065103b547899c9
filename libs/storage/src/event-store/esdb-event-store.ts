import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamRecordedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ConcurrencyError } from '@gensvc/kernel';
import type { DomainEvent, EventMetadata, NewEvent, RecordedEvent } from '@gensvc/kernel';
import { EventStore, type AppendOptions, type AppendResult, type ReadAllOptions } from '@gensvc/event-sourcing';
import { eventSchemas, type EventSchemas } from '@gensvc/kernel';

/**
 * Events of one append share their EventStoreDB commit position, so the commit position
 * alone does not order them. Our `position` is `commit * GROUP + index in the commit`: strictly
 * increasing in $all order, a safe JS integer for logs below 2^43 bytes (8 TiB), and
 * enough to resume a read exactly after any event.
 */
const GROUP = 1024n;
const MAX_COMMIT = BigInt(Number.MAX_SAFE_INTEGER) / GROUP;
/** Commit position EventStoreDB reports when it does not know one (stream reads on old servers). */
const NO_POSITION = 2n ** 63n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface StoredMetadata extends EventMetadata {
  /** The caller's event id when it was not a UUID (EventStoreDB ids must be UUIDs). */
  readonly eventId?: string;
  readonly $correlationId?: string;
  readonly $causationId?: string;
}

type EsdbEvent = {
  id: string;
  streamId: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  position?: Position;
};

const isSystem = (e: { type: string; streamId: string }): boolean => e.type.startsWith('$') || e.streamId.startsWith('$');
const samePosition = (a: Position, b: Position): boolean => a.commit === b.commit && a.prepare === b.prepare;

function encode(commit: bigint, index: number): bigint {
  if (commit > MAX_COMMIT) throw new Error(`EventStoreDB commit position ${commit} is beyond what positions can encode`);
  return commit * GROUP + BigInt(index);
}

/** A stable UUID for a caller id that is not one (name-based, SHA-1, like UUID v5). */
function uuidFor(id: string): string {
  const h = createHash('sha1').update(`gensvc-event:${id}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/**
 * Production event store: EventStoreDB through its gRPC client. Streams map one to one;
 * `readAll` reads `$all` without EventStoreDB's own system events. `onAppended` is fed by
 * this process's appends and by a live `$all` subscription (appends of other processes).
 */
export class EsdbEventStore extends EventStore {
  private readonly client: EventStoreDBClient;
  private readonly emitter = new EventEmitter();
  private live: AllStreamSubscription | undefined;
  private liveRetry: NodeJS.Timeout | undefined;
  private closed = false;
  private notifyQueued = false;
  /** Prepare positions of recently seen multi-event commits, to number stream reads. */
  private readonly groups = new Map<bigint, bigint[]>();

  /** `connection`: an EventStoreDB connection string (or a client, for tests). */
  constructor(
    connection: string | EventStoreDBClient,
    private readonly schemas: EventSchemas = eventSchemas,
  ) {
    super();
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
    this.emitter.setMaxListeners(100);
  }

  override async appendToStream<E extends DomainEvent>(stream: string, events: readonly NewEvent<E>[], options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append of no events');
    // No pipelined appends here (`pipelinedAppends` is false): commands wait for each append.
    if (options.expectedLastEventId !== undefined || options.after?.length) throw new Error('pipelined appends are not supported by the EventStoreDB adapter');
    if (BigInt(events.length) > GROUP) throw new Error(`append of more than ${GROUP} events in one call`);
    const now = new Date().toISOString();
    // Serialise everything first: a bad event fails the whole append before anything is sent.
    const data = events.map((e) => {
      const id = e.id ?? randomUUID();
      const metadata: StoredMetadata = {
        schemaVersion: this.schemas.currentVersion(e.type),
        occurredAt: now,
        ...e.metadata,
        ...(UUID.test(id) ? {} : { eventId: id }),
      };
      const withEsdbKeys: StoredMetadata = {
        ...metadata,
        ...(metadata.correlationId ? { $correlationId: metadata.correlationId } : {}),
        ...(metadata.causationId ? { $causationId: metadata.causationId } : {}),
      };
      return jsonEvent({
        id: UUID.test(id) ? id : uuidFor(id),
        type: e.type,
        data: JSON.parse(JSON.stringify(e.data ?? null)),
        metadata: JSON.parse(JSON.stringify(withEsdbKeys)),
      });
    });
    const expected = options.expectedRevision ?? 'any';
    const expectedRevision: AppendExpectedRevision =
      expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : expected === 'stream_exists' ? STREAM_EXISTS : expected;
    let result;
    try {
      result = await this.client.appendToStream(stream, data, { expectedRevision });
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = err.actualVersion;
        throw new ConcurrencyError(stream, String(expected), typeof actual === 'bigint' ? String(actual) : 'no_stream');
      }
      throw err;
    }
    this.notify();
    const position = await this.positionOf(data[data.length - 1].id, result.position);
    return { nextExpectedRevision: result.nextExpectedRevision, position };
  }

  override async readStream<E extends DomainEvent>(stream: string, options: { fromRevision?: bigint } = {}): Promise<RecordedEvent<E>[]> {
    const out: RecordedEvent<E>[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision: options.fromRevision ?? START, direction: FORWARDS })) {
        const e = resolved.event as EsdbEvent | undefined;
        if (!e) continue;
        out.push(this.toRecorded(e, await this.streamEventPosition(e)) as RecordedEvent<E>);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  override async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? -1n;
    const maxCount = options.maxCount ?? 1000;
    const out: RecordedEvent[] = [];
    if (maxCount <= 0) return out;
    // Resume at the first event of the commit holding `after`, numbering that commit's events.
    let from: ReadPosition = after < 0n ? START : { commit: after / GROUP, prepare: after / GROUP };
    let last: Position | undefined;
    let group = -1n;
    let index = 0;
    for (;;) {
      const page = Math.max(64, maxCount - out.length + 1 + (last ? 0 : Number(after < 0n ? 0n : after % GROUP)));
      let seen = 0;
      for await (const resolved of this.client.readAll({ fromPosition: from, maxCount: page, direction: FORWARDS })) {
        seen++;
        const e = resolved.event as AllStreamRecordedEvent | undefined;
        if (!e) continue;
        if (last && samePosition(e.position, last)) continue; // pages start inclusive
        last = e.position;
        if (e.position.commit === group) index++;
        else {
          group = e.position.commit;
          index = 0;
        }
        if (isSystem(e) || out.length >= maxCount) continue;
        const position = encode(group, index);
        if (position <= after) continue;
        out.push(this.toRecorded(e as EsdbEvent, position));
      }
      if (out.length >= maxCount || seen < page || !last) break;
      from = last;
    }
    return out;
  }

  override async headPosition(): Promise<bigint> {
    let from: ReadPosition = END;
    let last: Position | undefined;
    for (;;) {
      let seen = 0;
      for await (const resolved of this.client.readAll({ fromPosition: from, maxCount: 256, direction: BACKWARDS })) {
        seen++;
        const e = resolved.event as AllStreamRecordedEvent | undefined;
        if (!e) continue;
        if (last && samePosition(e.position, last)) continue;
        last = e.position;
        if (!isSystem(e)) return this.positionInGroup(e.position, e.id);
      }
      if (seen < 256 || !last) return -1n;
      from = last;
    }
  }

  override onAppended(listener: () => void): () => void {
    this.emitter.on('appended', listener);
    this.startLive();
    return () => this.emitter.off('appended', listener);
  }

  override async ping(): Promise<void> {
    for await (const _ of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) {
      // reaching the server is the check
    }
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.liveRetry);
    const live = this.live;
    this.live = undefined;
    await live?.unsubscribe().catch(() => undefined);
    await this.client.dispose();
  }

  /** Coalesced wake-up of the listeners. */
  private notify(): void {
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    setImmediate(() => {
      this.notifyQueued = false;
      this.emitter.emit('appended');
    });
  }

  /** A live `$all` subscription that wakes the listeners on appends of other processes. */
  private startLive(): void {
    if (this.live || this.closed) return;
    const sub = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    this.live = sub;
    sub.on('data', () => this.notify());
    sub.on('error', () => {
      // A hint only: subscriptions still poll. Try again later.
      if (this.live === sub) this.live = undefined;
      if (!this.closed && this.emitter.listenerCount('appended')) {
        clearTimeout(this.liveRetry);
        this.liveRetry = setTimeout(() => this.startLive(), 5000);
        this.liveRetry.unref();
      }
    });
  }

  /** Our position of an event just appended, from the position EventStoreDB reported. */
  private async positionOf(eventId: string, reported: Position | undefined): Promise<bigint> {
    if (reported && reported.commit < NO_POSITION) {
      const commit = reported.commit;
      let index = 0;
      let group = -1n;
      for await (const resolved of this.client.readAll({ fromPosition: { commit, prepare: commit }, maxCount: Number(GROUP) + 1 })) {
        const e = resolved.event;
        if (!e) continue;
        if (e.position.commit === group) index++;
        else {
          group = e.position.commit;
          index = 0;
        }
        if (e.id === eventId) return encode(group, index);
      }
    }
    // Unusual: find the event by scanning back from the end.
    let from: ReadPosition = END;
    for (let scanned = 0; scanned < 100_000; ) {
      let last: Position | undefined;
      let seen = 0;
      for await (const resolved of this.client.readAll({ fromPosition: from, maxCount: 256, direction: BACKWARDS })) {
        seen++;
        scanned++;
        const e = resolved.event;
        if (!e) continue;
        last = e.position;
        if (e.id === eventId) return this.positionInGroup(e.position, e.id);
      }
      if (seen < 256 || !last) break;
      from = last;
    }
    throw new Error(`appended event ${eventId} not found in $all`);
  }

  /** The index of an event within its commit, read forward from the commit's start. */
  private async positionInGroup(position: Position, id: string): Promise<bigint> {
    if (position.commit === position.prepare) return encode(position.commit, 0);
    const prepares = await this.groupPrepares(position.commit);
    const index = prepares.indexOf(position.prepare);
    if (index < 0) throw new Error(`event ${id} not found in its commit ${position.commit}`);
    return encode(position.commit, index);
  }

  private async groupPrepares(commit: bigint): Promise<bigint[]> {
    const cached = this.groups.get(commit);
    if (cached) return cached;
    const prepares: bigint[] = [];
    for await (const resolved of this.client.readAll({ fromPosition: { commit, prepare: commit }, maxCount: Number(GROUP) })) {
      const e = resolved.event;
      if (!e) continue;
      if (e.position.commit !== commit) break;
      prepares.push(e.position.prepare);
    }
    if (this.groups.size > 1000) this.groups.delete(this.groups.keys().next().value!);
    this.groups.set(commit, prepares);
    return prepares;
  }

  /** Position of an event read from a stream; -1n when the server does not report one. */
  private async streamEventPosition(e: EsdbEvent): Promise<bigint> {
    const p = e.position;
    if (!p || p.commit >= NO_POSITION) return -1n;
    return this.positionInGroup(p, e.id);
  }

  private toRecorded(e: EsdbEvent, position: bigint): RecordedEvent {
    const { eventId, $correlationId: _correlation, $causationId: _causation, ...stored } = (e.metadata ?? {}) as StoredMetadata;
    const metadata: EventMetadata = { ...stored, schemaVersion: stored.schemaVersion ?? 1 };
    const lifted = this.schemas.lift(e.type, metadata.schemaVersion, e.data);
    return {
      id: eventId ?? e.id,
      streamName: e.streamId,
      revision: e.revision,
      position,
      type: e.type,
      data: lifted.data,
      metadata: lifted.version === metadata.schemaVersion ? metadata : { ...metadata, schemaVersion: lifted.version },
    };
  }
}
