import { ConcurrencyError } from '../errors';
import { KeyedLock } from '../keyed-lock';
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

export interface CommandHandlerOptions {
  /** Streams whose fold is kept in memory (least recently used dropped). Default 2,000. */
  readonly cacheLimit?: number;
  /** Retries on concurrency conflicts (another process wrote the stream). Default 50. */
  readonly retries?: number;
}

/**
 * `handleCommand` for streams that many commands hit in a row (a wallet: several events per
 * task): commands on one stream are serialized inside the process (one keyed lock), so they
 * do not race each other into conflicts, and each stream's fold is cached, so a command reads
 * only the events appended since (by another process, too: the read starts at the cached
 * revision). A conflict (another process appended meanwhile) reads on and decides again.
 */
export class CommandHandler<State, Command, Event extends DomainEvent> {
  private readonly cache = new Map<string, { readonly state: State; readonly revision: bigint }>();
  private readonly lock = new KeyedLock();
  private readonly cacheLimit: number;
  private readonly retries: number;

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<State, Command, Event>,
    options: CommandHandlerOptions = {},
  ) {
    this.cacheLimit = options.cacheLimit ?? 2_000;
    this.retries = options.retries ?? 50;
  }

  /** The stream folded up to its head (after any command on it that is running here). */
  load(stream: string): Promise<{ state: State; revision: bigint }> {
    return this.lock.run(stream, () => this.fold(stream));
  }

  handle(stream: string, command: Command, options: { metadata?: Partial<EventMetadata> } = {}): Promise<HandleResult<State, Event>> {
    return this.lock.run(stream, async () => {
      for (let attempt = 0; ; attempt++) {
        const base = await this.fold(stream);
        const events = this.decider.decide(command, base.state);
        if (events.length === 0) return { state: base.state, events, revision: base.revision };
        try {
          const result = await this.store.appendToStream(stream, events.map((e) => toNewEvent(e, options.metadata)), {
            expectedRevision: base.revision === -1n ? 'no_stream' : base.revision,
          });
          let state = base.state;
          for (const e of events) state = this.decider.evolve(state, e);
          this.remember(stream, { state, revision: result.nextExpectedRevision });
          return { state, events, revision: result.nextExpectedRevision, position: result.position };
        } catch (err) {
          if (err instanceof ConcurrencyError && attempt < this.retries) {
            await new Promise((r) => setTimeout(r, Math.random() * 3 * (attempt + 1)));
            continue;
          }
          throw err;
        }
      }
    });
  }

  private async fold(stream: string): Promise<{ state: State; revision: bigint }> {
    const cached = this.cache.get(stream) ?? { state: this.decider.initialState(), revision: -1n };
    const newer = await this.store.readStream<Event>(stream, { fromRevision: cached.revision + 1n });
    if (!newer.length) {
      this.remember(stream, cached);
      return cached;
    }
    let state = cached.state;
    for (const r of newer) state = this.decider.evolve(state, { type: r.type, data: r.data } as Event);
    const folded = { state, revision: newer[newer.length - 1].revision };
    this.remember(stream, folded);
    return folded;
  }

  private remember(stream: string, folded: { state: State; revision: bigint }): void {
    this.cache.delete(stream);
    this.cache.set(stream, folded);
    if (this.cache.size > this.cacheLimit) this.cache.delete(this.cache.keys().next().value as string);
  }
}
