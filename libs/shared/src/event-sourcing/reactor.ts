import type { RecordedEvent } from './event';

/**
 * A reactor (saga, process manager, policy) reacts to stored events by issuing commands.
 * Delivery is at least once, in order, from a durable checkpoint: `handle` must be
 * idempotent (commands check the target stream's state before acting). A throw retries
 * the same event with backoff; the checkpoint only moves past handled events.
 */
export interface Reactor {
  readonly name: string;
  readonly handles: readonly string[];
  handle(event: RecordedEvent): Promise<void>;
}

/** Nest multi-provider token under which contexts register reactors. */
export const REACTORS = Symbol('REACTORS');
