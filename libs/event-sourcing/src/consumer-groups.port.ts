/**
 * Competing consumers over the event store (EventStoreDB's persistent subscriptions): a
 * named group reads the stored events of some types, and the server hands each one to one
 * of the group's connected consumers. A message stays with its consumer until it is
 * acknowledged; the server gives it to a consumer again when it is refused for a retry,
 * when its consumer's connection ends (a stopped or killed process), or when it was not
 * acknowledged within the message timeout. After `maxRetryCount` further deliveries the
 * server parks it. Delivery is at least once: a handler must be idempotent.
 */
export interface ConsumerGroupSpec {
  /** The group's name, one per purpose (e.g. `gensvc-supplier-jobs`). */
  readonly group: string;
  /** The event types the group receives, from every stream, from the start of the log. */
  readonly eventTypes: readonly string[];
  /** A delivered message not acknowledged this long goes to a consumer again. */
  readonly messageTimeoutMs: number;
  /** Deliveries after the first before the server parks a message instead. */
  readonly maxRetryCount: number;
}

export interface GroupMessage {
  /** The stored event's id (the service's id, as `RecordedEvent.id`). */
  readonly eventId: string;
  readonly type: string;
  readonly streamName: string;
  /** The event's data, lifted to its current schema version. */
  readonly data: unknown;
  /** How many times the server delivered this message before (0 on the first delivery). */
  readonly retryCount: number;
  /** Done: the group never delivers it again. */
  ack(): Promise<void>;
  /** Not done: `retry` gives it to a consumer again, `park` sets it aside (parked messages can be replayed by an operator). */
  nack(action: 'retry' | 'park', reason: string): Promise<void>;
}

export interface ConsumeOptions {
  /** At most this many messages delivered to this consumer and not acknowledged. */
  readonly inFlight: number;
  onMessage(message: GroupMessage): void;
  /**
   * The connection to the group ended unasked (server restart, group updated, network):
   * the server gives this consumer's unacknowledged messages to others, and acks or nacks
   * of them no longer count. The consumer connects again by itself.
   */
  onDropped(err: Error): void;
}

export interface GroupConsumer {
  /** Leaves the group: messages not acknowledged go to the other consumers. */
  close(): Promise<void>;
}

export abstract class ConsumerGroups {
  /**
   * Creates the group, or updates its settings when they differ from `spec` (an update
   * restarts the group on the server and drops its consumers, so an unchanged group is
   * left alone). Safe to call from every process at every start.
   */
  abstract ensure(spec: ConsumerGroupSpec): Promise<void>;
  /** Joins the group as one consumer. */
  abstract consume(group: string, options: ConsumeOptions): GroupConsumer;
  abstract close(): Promise<void>;
}
