import { ConcurrencyError } from '../errors';
import { RequestContexts } from '../request-context';
import type { Decider } from './decider';
import type { DomainEvent, EventMetadata, NewEvent } from './event';
import type { EventStore } from './event-store.port';

export interface HandleResult<State, Event extends DomainEvent> {
  /** The state after the new events. */
  readonly state: State;
  /** The events this command produced (possibly none: an idempotent repeat). */
  readonly events: readonly Event[];
  /** Revision of the stream after the command; -1n when the stream still does not exist. */
  readonly revision: bigint;
  /** Global position of the last new event, or undefined when nothing was appended. */
  readonly position?: bigint;
}

export interface HandleOptions {
  /** Retries on concurrency conflicts (re-read, re-decide). Default 10. */
  readonly retries?: number;
  readonly metadata?: Partial<EventMetadata>;
}

/**
 * The one way a command changes an aggregate: read the stream, fold, decide, append with
 * the expected revision; on a conflict re-read and decide again.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: HandleOptions = {},
): Promise<HandleResult<State, Event>> {
  const retries = options.retries ?? 10;
  for (let attempt = 0; ; attempt++) {
    const recorded = await store.readStream<Event>(stream);
    let state = decider.initialState();
    for (const r of recorded) state = decider.evolve(state, { type: r.type, data: r.data } as Event);
    const revision = recorded.length ? recorded[recorded.length - 1].revision : -1n;
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events, revision };
    try {
      const result = await store.appendToStream(stream, events.map((e) => toNewEvent(e, options.metadata)), {
        expectedRevision: revision === -1n ? 'no_stream' : revision,
      });
      for (const e of events) state = decider.evolve(state, e);
      return { state, events, revision: result.nextExpectedRevision, position: result.position };
    } catch (err) {
      if (err instanceof ConcurrencyError && attempt < retries) {
        await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
        continue;
      }
      throw err;
    }
  }
}

/** Reads and folds a stream without changing it. */
export async function loadAggregate<State, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
): Promise<{ state: State; revision: bigint }> {
  const recorded = await store.readStream<Event>(stream);
  let state = decider.initialState();
  for (const r of recorded) state = decider.evolve(state, { type: r.type, data: r.data } as Event);
  return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : -1n };
}

/** Adds the request context (correlation, causation, actor) to an event's metadata. */
export function toNewEvent<E extends DomainEvent>(event: E, extra?: Partial<EventMetadata>): NewEvent<E> {
  const ctx = RequestContexts.current();
  return {
    type: event.type,
    data: event.data,
    metadata: {
      ...(ctx?.requestId ? { correlationId: ctx.requestId } : {}),
      ...(ctx?.causationId ? { causationId: ctx.causationId } : ctx?.requestId ? { causationId: ctx.requestId } : {}),
      ...(ctx?.actor ? { actor: ctx.actor } : {}),
      ...extra,
    },
  };
}
