import type { DomainEvent, NewEvent, RecordedEvent } from '@gensvc/kernel';
import { EventStore, type AppendOptions, type AppendResult, type ReadAllOptions } from '../event-store.port';

/**
 * An event store that hands every call to another one: the base of test doubles that change
 * one call of a real store (a crash before an append, another process writing in between).
 */
export class DelegatingEventStore extends EventStore {
  constructor(readonly inner: EventStore) {
    super();
  }
  override get pipelinedAppends(): boolean {
    return this.inner.pipelinedAppends;
  }
  override appendToStream<E extends DomainEvent>(stream: string, events: readonly NewEvent<E>[], options?: AppendOptions): Promise<AppendResult> {
    return this.inner.appendToStream(stream, events, options);
  }
  override readStream<E extends DomainEvent>(stream: string, options?: { fromRevision?: bigint }): Promise<RecordedEvent<E>[]> {
    return this.inner.readStream(stream, options);
  }
  override readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }
  override headPosition(): Promise<bigint> {
    return this.inner.headPosition();
  }
  override onAppended(listener: () => void): () => void {
    return this.inner.onAppended(listener);
  }
  override ping(): Promise<void> {
    return this.inner.ping();
  }
  override close(): Promise<void> {
    return this.inner.close();
  }
}
