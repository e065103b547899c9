import type { RecordedEvent } from '@gensvc/kernel';

/**
 * A reactor (saga, process manager, policy) reacts to stored events by issuing commands.
 * Delivery is at least once, in order, from a durable checkpoint: `handle` must be
 * idempotent (commands check the target stream's state before acting). A throw retries
 * the same event with backoff; the checkpoint only moves past handled events.
 */
export interface Reactor {
  readonly name: string;
  readonly handles: readonly string[];
  /**
   * Run by one process at a time across the processes sharing the stores (a lease), instead
   * of by every process that runs reactors. For reactors whose effects outside the event
   * store need not be repeated by every worker (deleting stored objects, calling a supplier).
   * Delivery stays at least once: a process taking over repeats the events after the last
   * stored checkpoint.
   */
  readonly exclusive?: boolean;
  handle(event: RecordedEvent): Promise<void>;
}

/** Nest multi-provider token under which contexts register reactors. */
export const REACTORS = Symbol('REACTORS');
