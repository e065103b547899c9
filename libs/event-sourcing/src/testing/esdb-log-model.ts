import {
  END,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type EventData,
  type EventStoreDBClient,
  type Position,
  type ReadPosition,
} from '@eventstore/db-client';
import { EventEmitter } from 'node:events';
import { expectationMet } from '../event-store.port';

export interface LogEvent {
  id: string;
  streamId: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  position: Position;
}

const cmp = (a: Position, b: Position): number =>
  a.commit !== b.commit ? (a.commit < b.commit ? -1 : 1) : a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1;

/**
 * An in-process model of the parts of EventStoreDB's gRPC client that `EsdbEventStore` uses,
 * shaped like the server's transaction log: the events of one append share the commit
 * position of the first one and have increasing prepare positions; system events (`$`
 * streams) sit between user events; `$all` reads are inclusive of their start position.
 * It checks the adapter's own logic (position encoding, paging, filtering, error mapping)
 * in unit tests. It is not EventStoreDB: the contract suite against a real server runs
 * when EVENTSTORE_URL is set.
 */
export class EsdbLogModel {
  protected readonly log: LogEvent[] = [];
  private readonly subscribers = new Set<EventEmitter>();
  private next = 1000n;

  constructor(private readonly options: { systemEventsEvery?: number } = {}) {}

  /** A client object for one `EsdbEventStore`; all clients share this log. */
  client(): EventStoreDBClient {
    const client = {
      appendToStream: (stream: string, events: EventData | EventData[], opts: { expectedRevision?: AppendExpectedRevision } = {}) =>
        this.append(stream, Array.isArray(events) ? events : [events], opts.expectedRevision ?? 'any'),
      readStream: (stream: string, opts: { fromRevision?: typeof START | bigint } = {}) => this.readStream(stream, opts.fromRevision),
      readAll: (opts: { fromPosition?: ReadPosition; maxCount?: number | bigint; direction?: 'forwards' | 'backwards' } = {}) => this.readAll(opts),
      subscribeToAll: () => {
        const sub = Object.assign(new EventEmitter(), { unsubscribe: async () => void this.subscribers.delete(sub) });
        this.subscribers.add(sub);
        return sub;
      },
      dispose: async () => undefined,
    };
    return client as unknown as EventStoreDBClient;
  }

  /** Called after every append (for subclasses that model more of the server). */
  protected appended(): void {}

  private write(streamId: string, events: { id: string; type: string; data: unknown; metadata: unknown }[], revision: bigint): Position {
    const commit = this.next;
    for (const [i, e] of events.entries()) {
      const prepare = this.next;
      this.next += 97n + BigInt(JSON.stringify(e.data ?? null).length);
      this.log.push({ ...e, streamId, revision: revision + BigInt(i), position: { commit, prepare } });
    }
    return { commit, prepare: commit };
  }

  private head(stream: string): bigint {
    let r = -1n;
    for (const e of this.log) if (e.streamId === stream) r = e.revision;
    return r;
  }

  private async append(stream: string, events: EventData[], expected: AppendExpectedRevision) {
    await Promise.resolve();
    const current = this.head(stream);
    if (!expectationMet(expected, current)) {
      throw new WrongExpectedVersionError(undefined as never, { streamName: stream, expected, current: current === -1n ? 'no_stream' : current });
    }
    const every = this.options.systemEventsEvery ?? 0;
    if (every && this.log.length % every === 0) this.write('$stats-127.0.0.1:2113', [{ id: `sys-${this.next}`, type: '$statsCollected', data: {}, metadata: {} }], 0n);
    const position = this.write(stream, events.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata })), current + 1n);
    for (const s of this.subscribers) setImmediate(() => s.emit('data', {}));
    this.appended();
    return { success: true, nextExpectedRevision: current + BigInt(events.length), position };
  }

  private async *readStream(stream: string, from: typeof START | bigint = START) {
    await Promise.resolve();
    const events = this.log.filter((e) => e.streamId === stream);
    if (!events.length) throw new StreamNotFoundError(undefined as never, stream);
    for (const e of events) if (from === START || e.revision >= from) yield { event: { ...e } };
  }

  private async *readAll(opts: { fromPosition?: ReadPosition; maxCount?: number | bigint; direction?: 'forwards' | 'backwards' }) {
    await Promise.resolve();
    const max = Number(opts.maxCount ?? Number.MAX_SAFE_INTEGER);
    const from = opts.fromPosition ?? (opts.direction === 'backwards' ? END : START);
    let events: LogEvent[];
    if (opts.direction === 'backwards') {
      events = [...this.log].reverse().filter((e) => from === END || (from !== START && cmp(e.position, from) < 0));
    } else {
      events = this.log.filter((e) => from === START || (from !== END && cmp(e.position, from) >= 0));
    }
    for (const e of events.slice(0, max)) yield { event: { ...e } };
  }
}
