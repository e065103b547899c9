import { AsyncLocalStorage } from 'node:async_hooks';
import { ConcurrencyError } from '@gensvc/kernel';
import type { AppendResult, EventStore } from './event-store.port';

const chains = new AsyncLocalStorage<AppendChain>();

/** A chained append did not go in (another writer came first): nothing after it did either. */
export class ChainDiverged extends Error {
  constructor(override readonly cause: ConcurrencyError) {
    super(`a chained append did not go in: ${cause.message}`);
  }
}

/**
 * Commands that follow one another without waiting for each other's commit, stored in the
 * order they were decided, in as few group commits as the store makes of them. Only on a
 * store with `pipelinedAppends` (the embedded one); elsewhere `AppendChain.run` just runs the
 * work and every command waits for its own append.
 *
 * Inside `run`, `handleCommand` and `CommandHandler.handle` decide as usual, queue the append
 * after the chain's previous one (`after`: it goes in only if that one did) and return the
 * decided state at once, without a position. `run` resolves once every append of the chain is
 * durable, with the highest position; if one of them failed its precondition, everything
 * after it failed too and `run` rejects with `ChainDiverged`: the caller decides again on
 * what the store holds (a workflow resumes from its stored history, which converges from any
 * prefix). A command on a stream the chain already appended to reads that stream from the
 * store, so the chain first waits for its appends (and goes on as a new chain).
 *
 * Only for steps without effects outside the event store: nothing may act on a decision
 * before `run` resolved.
 */
export class AppendChain {
  private lastEventId: string | undefined;
  private readonly streams = new Set<string>();
  private commits: Promise<AppendResult | undefined>[] = [];
  private position: bigint | undefined;

  private constructor(readonly store: EventStore) {}

  /** Runs `work` with its commands on `store` chained; resolves once they are all durable. */
  static async run<T>(store: EventStore, work: () => Promise<T>): Promise<{ value: T; position?: bigint }> {
    if (!store.pipelinedAppends) return { value: await work() };
    const chain = new AppendChain(store);
    let value: T;
    try {
      value = await chains.run(chain, work);
    } catch (err) {
      await Promise.allSettled(chain.commits);
      throw err;
    }
    await chain.flush();
    return { value, position: chain.position };
  }

  /** The chain the current command belongs to, when it runs on `store`. */
  static of(store: EventStore): AppendChain | undefined {
    const chain = chains.getStore();
    return chain && chain.store === store ? chain : undefined;
  }

  /** Before a command on `stream` reads it from the store: waits for the chain's appends to it. */
  async enter(stream: string): Promise<void> {
    if (this.streams.has(stream)) await this.flush();
  }

  /** What the next append must come after. */
  get after(): readonly string[] {
    return this.lastEventId === undefined ? [] : [this.lastEventId];
  }

  /** Records an append queued on `stream` whose last event is `lastEventId`. */
  queued(stream: string, lastEventId: string, committed: Promise<AppendResult | undefined>): void {
    committed.catch(() => undefined); // observed by flush; never an unhandled rejection meanwhile
    this.streams.add(stream);
    this.lastEventId = lastEventId;
    this.commits.push(committed);
  }

  /** Waits for every append queued so far; the chain then starts anew. */
  private async flush(): Promise<void> {
    const settled = await Promise.allSettled(this.commits);
    this.commits = [];
    this.streams.clear();
    this.lastEventId = undefined;
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason instanceof ConcurrencyError ? new ChainDiverged(failed.reason) : failed.reason;
    for (const r of settled) {
      const p = (r as PromiseFulfilledResult<AppendResult | undefined>).value?.position;
      if (p !== undefined && (this.position === undefined || p > this.position)) this.position = p;
    }
  }
}
