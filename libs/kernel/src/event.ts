/**
 * Events are readonly plain objects `{ type, data }`; the type string is a persisted
 * contract (never derived from a class name). Metadata is added when appended.
 */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

export interface EventMetadata {
  /** Schema version of `data` for this `type`; upcasters lift old versions on read. */
  readonly schemaVersion: number;
  /** When the event happened (RFC 3339). */
  readonly occurredAt: string;
  /** The request id (or workflow id) the change belongs to. */
  readonly correlationId?: string;
  /** Id of the event or request that caused this one. */
  readonly causationId?: string;
  /** Who acted: `account:acc_..`, `admin`, `system:<name>`. */
  readonly actor?: string;
  /** The process that wrote it: `<host>/<pid>` (which api or worker process did what). */
  readonly origin?: string;
}

/** An event as stored: with its stream, its revision in the stream and its global position. */
export interface RecordedEvent<E extends DomainEvent = DomainEvent> {
  readonly id: string;
  readonly streamName: string;
  /** 0-based index in its stream. */
  readonly revision: bigint;
  /** Global, strictly increasing position in the store ("$all"). Not necessarily contiguous. */
  readonly position: bigint;
  readonly type: E['type'];
  readonly data: E['data'];
  readonly metadata: EventMetadata;
}

/**
 * A recorded event of a union of domain events, distributed over its members: a `switch` on
 * `type` narrows `data` (`RecordedEvent<A | B>` alone would not).
 */
export type RecordedOf<E extends DomainEvent> = E extends DomainEvent ? RecordedEvent<E> : never;

/** An event about to be appended. */
export interface NewEvent<E extends DomainEvent = DomainEvent> {
  readonly type: E['type'];
  readonly data: E['data'];
  /** Overrides: schemaVersion defaults to the registered current version, occurredAt to now. */
  readonly metadata?: Partial<EventMetadata>;
  /** Event id; generated when absent. */
  readonly id?: string;
}

/** `<aggregate>-<id>` so that EventStoreDB's category projections work. */
export const streamName = (aggregate: string, id: string): string => `${aggregate}-${id}`;
export const streamCategory = (name: string): string => name.slice(0, name.indexOf('-'));
