import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConcurrencyError } from '@gensvc/kernel';
import { AppendChain } from './append-chain';
import { KeyedLock } from './keyed-lock';
import { RequestContexts } from './request-context';
import type { Decider } from '@gensvc/kernel';
import type { DomainEvent, EventMetadata, NewEvent } from '@gensvc/kernel';
import type { AppendResult, EventStore, ExpectedRevision } from './event-store.port';

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
  /**
   * The stream is named after an id made just now (random, never handed out): nothing can be
   * stored on it yet, so the first attempt does not read it and decides on the initial state.
   * The append still expects no stream, so a wrong guess is a conflict like any other.
   */
  readonly fresh?: boolean;
}

/**
 * The one way a command changes an aggregate: read the stream, fold, decide, append with
 * the expected revision; on a conflict re-read and decide again. Inside an `AppendChain` the
 * append is queued after the chain's previous one and the decided state returned at once
 * (no position, no retry: a conflict fails the chain, whose caller decides again).
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: HandleOptions = {},
): Promise<HandleResult<State, Event>> {
  const chain = AppendChain.of(store);
  if (chain) return chainedCommand(chain, stream, decider, command, options);
  const retries = options.retries ?? 10;
  for (let attempt = 0; ; attempt++) {
    const recorded = options.fresh && attempt === 0 ? [] : await store.readStream<Event>(stream);
    let state = decider.initialState();
    for (const r of recorded) state = decider.evolve(state, { type: r.type, data: r.data } as Event);
    const revision = recorded.length ? recorded[recorded.length - 1].revision : -1n;
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events, revision };
    try {
      const result = await store.appendToStream(stream, events.map((e) => toNewEvent(e, options.metadata)), {
        expectedRevision: expectedAfter(revision),
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

/** The expected revision of an append after `revision` (-1n: the stream does not exist yet). */
const expectedAfter = (revision: bigint): ExpectedRevision => (revision === -1n ? 'no_stream' : revision);

/** New events with ids of their own, so that a later step can name the last one as its precondition. */
const withIds = <E extends DomainEvent>(events: readonly E[], metadata?: Partial<EventMetadata>): NewEvent<E>[] =>
  events.map((e) => ({ ...toNewEvent(e, metadata), id: randomUUID() }));

async function chainedCommand<State, Command, Event extends DomainEvent>(
  chain: AppendChain,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: HandleOptions,
): Promise<HandleResult<State, Event>> {
  await chain.enter(stream);
  // A fresh stream (see HandleOptions.fresh) is not read: its append expects no stream.
  const { state: base, revision } = options.fresh ? { state: decider.initialState(), revision: -1n } : await loadAggregate(chain.store, stream, decider);
  const events = decider.decide(command, base);
  if (events.length === 0) return { state: base, events, revision };
  const newEvents = withIds(events, options.metadata);
  const after = chain.after;
  chain.queued(stream, newEvents[newEvents.length - 1].id!, chain.store.appendToStream(stream, newEvents, { expectedRevision: expectedAfter(revision), ...(after.length ? { after } : {}) }));
  let state = base;
  for (const e of events) state = decider.evolve(state, e);
  return { state, events, revision: revision + BigInt(events.length) };
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
      origin: ORIGIN,
      ...extra,
    },
  };
}

/** How events name the process that wrote them (`EventMetadata.origin`). */
export const originOf = (pid: number): string => `${hostname()}/${pid}`;

/** This process, as every event it writes names it. */
export const ORIGIN = originOf(process.pid);

export interface CommandHandlerOptions {
  /** Streams whose fold is kept in memory (least recently used dropped). Default 2,000. */
  readonly cacheLimit?: number;
  /** Retries on concurrency conflicts (another process wrote the stream). Default 50. */
  readonly retries?: number;
}

/** A stream folded in memory, possibly including appends of this process still in flight. */
interface Folded<State> {
  readonly state: State;
  readonly revision: bigint;
  /** Id of the stream's last event as folded (undefined: no stream yet, or not known). */
  readonly lastEventId?: string;
  /**
   * While the fold includes appends not committed yet: settles when the newest of them has
   * (true: committed, so every one before it was too; false: it failed).
   */
  readonly inFlight?: Promise<boolean>;
  /** Folds built on top of one another while in flight share an epoch; a store read starts a new one. */
  readonly epoch: number;
}

type Step<State, Event extends DomainEvent> =
  | {
      readonly kind: 'appending';
      readonly append: Promise<AppendResult>;
      readonly state: State;
      readonly events: readonly Event[];
      readonly revision: bigint;
      readonly lastEventId: string;
    }
  | { readonly kind: 'unchanged'; readonly base: Folded<State> }
  | { readonly kind: 'refused'; readonly error: unknown; readonly base: Folded<State> };

/**
 * `handleCommand` for streams that many commands hit in a row (a wallet: several events per
 * task). Commands on one stream are serialized inside the process (one keyed lock), so they
 * do not race each other into conflicts, and each stream's fold is cached, so a command reads
 * only the events appended since (by another process, too: the read starts at the cached
 * revision). A conflict (another process appended meanwhile) reads on and decides again.
 *
 * On a store with `pipelinedAppends` (the embedded one) the lock is held only while a command
 * is decided and its append queued, not while it commits: the next command is decided on top
 * of the appends still in flight and names the last of their events as its precondition
 * (`expectedLastEventId`), so it goes in only if they did, in the same group commit. When an
 * append fails, every command decided on top of it fails its precondition too and is decided
 * again on what the store holds. A command that appends nothing (a refusal, a repeat) while
 * appends it saw are in flight waits for them: if one failed it is decided again, so no
 * answer rests on events that were never stored.
 */
export class CommandHandler<State, Command, Event extends DomainEvent> {
  private readonly cache = new Map<string, Folded<State>>();
  private readonly lock = new KeyedLock();
  private readonly cacheLimit: number;
  private readonly retries: number;
  private epochs = 0;

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<State, Command, Event>,
    options: CommandHandlerOptions = {},
  ) {
    this.cacheLimit = options.cacheLimit ?? 2_000;
    this.retries = options.retries ?? 50;
  }

  /**
   * The stream folded up to its head, including appends of this process still in flight (it
   * does not wait for them): a quick look for checks that the decider repeats anyway.
   */
  async peek(stream: string): Promise<{ state: State; revision: bigint }> {
    const folded = await this.lock.run(stream, () => this.fold(stream));
    return { state: folded.state, revision: folded.revision };
  }

  /** The stream folded up to its head, as committed (after any append of this process in flight). */
  async load(stream: string): Promise<{ state: State; revision: bigint }> {
    for (;;) {
      const folded = await this.lock.run(stream, () => this.fold(stream));
      if (!folded.inFlight) return { state: folded.state, revision: folded.revision };
      await folded.inFlight;
    }
  }

  async handle(stream: string, command: Command, options: { metadata?: Partial<EventMetadata> } = {}): Promise<HandleResult<State, Event>> {
    const chain = AppendChain.of(this.store);
    for (let attempt = 0; ; attempt++) {
      const step = await this.lock.run(stream, () => this.decide(stream, command, { ...options, after: chain?.after }));
      if (step.kind !== 'appending') {
        const base = await this.unappended(step);
        if (!base) continue;
        return { state: base.state, events: [], revision: base.revision };
      }
      if (chain) {
        // Chained: the state as decided; the chain waits for the commit.
        chain.queued(stream, step.lastEventId, step.append);
        return { state: step.state, events: step.events, revision: step.revision };
      }
      try {
        const result = await step.append;
        return { state: step.state, events: step.events, revision: result.nextExpectedRevision, position: result.position };
      } catch (err) {
        if (err instanceof ConcurrencyError && attempt < this.retries) {
          await new Promise((r) => setTimeout(r, Math.random() * 3 * (attempt + 1)));
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * A command that appends nothing (a refusal, a repeat) decided on appends still in flight
   * holds only if they went in: its fold once they are stored (a refusal thrown), or null when
   * one failed (decide again).
   */
  private async unappended(step: Exclude<Step<State, Event>, { kind: 'appending' }>): Promise<Folded<State> | null> {
    if (step.base.inFlight && !(await step.base.inFlight)) return null;
    if (step.kind === 'refused') throw step.error;
    return step.base;
  }

  /** Under the stream's lock: folds, decides and, when there is something to append, queues the append. */
  private async decide(stream: string, command: Command, options: { after?: readonly string[]; metadata?: Partial<EventMetadata> }): Promise<Step<State, Event>> {
    const base = await this.fold(stream);
    let events: readonly Event[];
    try {
      events = this.decider.decide(command, base.state);
    } catch (error) {
      return { kind: 'refused', error, base };
    }
    if (events.length === 0) return { kind: 'unchanged', base };
    const newEvents = withIds(events, options.metadata);
    const pipelined = this.store.pipelinedAppends;
    const append = this.store.appendToStream(stream, newEvents, {
      expectedRevision: expectedAfter(base.revision),
      ...(base.inFlight && base.lastEventId !== undefined ? { expectedLastEventId: base.lastEventId } : {}),
      ...(options.after?.length ? { after: options.after } : {}),
    });
    append.catch(() => undefined); // observed by the caller; never an unhandled rejection meanwhile
    let state = base.state;
    for (const e of events) state = this.decider.evolve(state, e);
    const committed: Omit<Folded<State>, 'inFlight'> = { state, revision: base.revision + BigInt(events.length), lastEventId: newEvents[newEvents.length - 1].id, epoch: base.epoch };
    const settled = append.then(
      () => true,
      () => false,
    );
    if (pipelined) {
      // The next command may be decided on top of this one before it commits.
      const entry: Folded<State> = { ...committed, inFlight: settled };
      this.remember(stream, entry);
      void settled.then((ok) => this.settle(stream, entry, ok ? committed : null));
      return { kind: 'appending', append, state, events, revision: committed.revision, lastEventId: committed.lastEventId! };
    }
    // Otherwise the lock stays held until the append is done (the next command reads its outcome).
    this.cache.delete(stream);
    if (await settled) this.remember(stream, committed);
    return { kind: 'appending', append, state, events, revision: committed.revision, lastEventId: committed.lastEventId! };
  }

  /** An append in flight is done: its fold becomes committed, or (failed) every fold on top of it is dropped. */
  private settle(stream: string, entry: Folded<State>, committed: Folded<State> | null): void {
    const current = this.cache.get(stream);
    if (committed) {
      if (current === entry) this.cache.set(stream, committed);
    } else if (current && current.epoch === entry.epoch) {
      this.cache.delete(stream);
    }
  }

  private async fold(stream: string): Promise<Folded<State>> {
    const cached = this.cache.get(stream);
    // In flight: the store holds less than the fold, and a write of another process makes the append fail.
    if (cached?.inFlight) return cached;
    const base = cached ?? { state: this.decider.initialState(), revision: -1n, epoch: ++this.epochs };
    const newer = await this.store.readStream<Event>(stream, { fromRevision: base.revision + 1n });
    if (!newer.length) {
      this.remember(stream, base);
      return base;
    }
    let state = base.state;
    for (const r of newer) state = this.decider.evolve(state, { type: r.type, data: r.data } as Event);
    const last = newer[newer.length - 1];
    const folded: Folded<State> = { state, revision: last.revision, lastEventId: last.id, epoch: ++this.epochs };
    this.remember(stream, folded);
    return folded;
  }

  private remember(stream: string, folded: Folded<State>): void {
    this.cache.delete(stream);
    this.cache.set(stream, folded);
    if (this.cache.size > this.cacheLimit) this.cache.delete(this.cache.keys().next().value as string);
  }
}
