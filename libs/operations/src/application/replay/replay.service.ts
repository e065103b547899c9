import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AppError, Clock, streamName, type RecordedEvent } from '@gensvc/kernel';
import { EventStore, ReadStore, SubscriptionEngine, caughtUp, deferIndexes, targetOf, toNewEvent, type Projection, type ProjectionTarget } from '@gensvc/event-sourcing';
import { REPLAY_COMPLETED, type ReplayCompleted } from '../../domain/replay-events';
import { estimateTotal, rateAndEta, type ReplayResult, type ReplayState } from './replay-progress';
import { StagingReadStore } from './staging-read-store';

export interface ReplayOptions {
  /** Projection names; all projections when absent or empty. */
  readonly projections?: readonly string[];
  /** Record the run in the replay history (default true). */
  readonly record?: boolean;
}

/** Events read per batch while rebuilding. */
export const REPLAY_BATCH = 2000;
/** Documents written concurrently when copying a staged collection into the read store. */
const COPY_CONCURRENCY = 256;
const PROGRESS_EVERY_MS = 100;
const KEEP_RUNS = 20;

/**
 * Rebuilds projections from the event store without disturbing reads:
 * 1. every event is applied to the chosen projections in a staging store (in memory);
 * 2. the staged documents are copied into fresh collections `<name>__replay_<id>` of the
 *    read store, and the projections' indexes are created on them; a store with transactions
 *    (embedded SQLite) does 1 and 2 at once, applying the events straight to the indexed
 *    fresh collections, one transaction per batch;
 * 3. with the live projection loop paused between two batches (and, for a read store other
 *    processes share, their loops held too), the events that arrived meanwhile are applied to the fresh collections, each fresh collection atomically
 *    replaces its live one (`renameCollection`), and the projections' checkpoints move to
 *    the replay's position under a new generation; then the loop resumes.
 * A failure before step 3 drops the fresh collections: the live read models, their
 * checkpoints and every reader are untouched.
 */
@Injectable()
export class ReplayService {
  private readonly logger = new Logger('Replay');
  private readonly runs = new Map<string, ReplayState>();
  private running: string | undefined;

  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    @Inject(ReadStore) private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Names of every projection of the composed modules. */
  projectionNames(): string[] {
    return this.allProjections().map((p) => p.name);
  }

  /** The state of a replay started in this process (the last few are kept). */
  get(id: string): ReplayState | undefined {
    return this.runs.get(id);
  }

  /** The replay running in this process, if any. */
  current(): ReplayState | undefined {
    return this.running ? this.runs.get(this.running) : undefined;
  }

  /**
   * Starts a replay in the background and returns its first state; progress is read with
   * `get(id)`. Only one replay runs at a time in a process (409 CONFLICT otherwise).
   */
  start(options: ReplayOptions = {}): ReplayState {
    const { id, promise } = this.launch(options);
    promise.catch(() => undefined); // the failure is recorded in the run's state
    return this.runs.get(id)!;
  }

  /** Runs a replay to its end; `onProgress` is called as it advances (at most every 100 ms). */
  async run(options: ReplayOptions = {}, onProgress?: (state: ReplayState) => void): Promise<ReplayResult> {
    return this.launch(options, onProgress).promise;
  }

  private allProjections(): readonly Projection[] {
    if (!this.engine.listProjections().length) this.engine.discover();
    return this.engine.listProjections();
  }

  private select(names: readonly string[] | undefined): Projection[] {
    const all = this.allProjections();
    if (!names?.length) return [...all];
    const unknown = names.filter((n) => !all.some((p) => p.name === n));
    if (unknown.length) {
      throw new AppError('VALIDATION_ERROR', `projection: unknown ${unknown.join(', ')}; known: ${all.map((p) => p.name).join(', ') || 'none'}`);
    }
    return all.filter((p) => names.includes(p.name));
  }

  private launch(options: ReplayOptions, onProgress?: (state: ReplayState) => void): { id: string; promise: Promise<ReplayResult> } {
    const projections = this.select(options.projections);
    if (this.running) throw new AppError('CONFLICT', `replay ${this.running} is still running`);
    const id = `rpl_${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;
    this.running = id;
    const started = performance.now();
    let state: ReplayState = {
      id,
      status: 'running',
      phase: 'rebuilding',
      projections: projections.map((p) => p.name),
      events_done: 0,
      events_total: 0,
      events_per_second: 0,
      eta_seconds: null,
      started_at: this.clock.now().toISOString(),
      finished_at: null,
      seconds: 0,
      result: null,
      error: null,
    };
    this.runs.set(id, state);
    for (const old of [...this.runs.keys()].slice(0, Math.max(0, this.runs.size - KEEP_RUNS))) this.runs.delete(old);
    const seconds = () => Math.round(performance.now() - started) / 1000;
    const update = (patch: Partial<ReplayState>) => {
      state = { ...state, ...patch };
      const { rate, eta } = rateAndEta(state.events_done, state.events_total, seconds());
      state = { ...state, events_per_second: rate, eta_seconds: state.status === 'running' ? eta : 0, seconds: seconds() };
      this.runs.set(id, state);
      onProgress?.(state);
    };
    const promise = this.execute(id, projections, update)
      .then(async (events) => {
        const result: ReplayResult = { projections: projections.map((p) => p.name), events, seconds: seconds() };
        if (options.record !== false) await this.record(id, !options.projections?.length, result);
        update({ status: 'succeeded', phase: 'done', events_total: events, finished_at: this.clock.now().toISOString(), result });
        this.logger.log(`replay ${id} rebuilt ${result.projections.length} projection(s) from ${events} events in ${result.seconds} s`);
        return result;
      })
      .catch((err: unknown) => {
        const code = err instanceof AppError ? err.code : 'INTERNAL';
        const message = err instanceof Error ? err.message : String(err);
        update({ status: 'failed', finished_at: this.clock.now().toISOString(), error: { code, message } });
        this.logger.error(`replay ${id} failed; nothing was switched: ${message}`);
        throw err;
      })
      .finally(() => {
        if (this.running === id) this.running = undefined;
      });
    return { id, promise };
  }

  /** The three steps; returns the number of events replayed. */
  private async execute(id: string, projections: Projection[], update: (patch: Partial<ReplayState>) => void): Promise<number> {
    const fresh = (logical: string) => `${logical}__replay_${id}`;
    const created: string[] = [];
    let done = 0;
    let position = -1n;
    let first: bigint | undefined;
    let lastReport = 0;
    const head = await this.events.headPosition();
    update({ events_total: estimateTotal(0, undefined, undefined, head) });

    const applyBatch = async (batch: readonly RecordedEvent[], target: ProjectionTarget) => {
      for (const event of batch) {
        for (const p of projections) if (p.handles.includes(event.type)) await p.apply(event, target);
        position = event.position;
        first ??= event.position;
        done++;
      }
      const now = performance.now();
      if (now - lastReport >= PROGRESS_EVERY_MS) {
        lastReport = now;
        update({ events_done: done, events_total: estimateTotal(done, first, position, await this.events.headPosition()) });
      }
    };
    /** Applies every event after `position`; returns when a batch came back short (caught up). */
    const catchUp = async (target: ProjectionTarget) => {
      for (;;) {
        const batch = await this.events.readAll({ after: position, maxCount: REPLAY_BATCH });
        await applyBatch(batch, target);
        if (batch.length < REPLAY_BATCH) return;
      }
    };

    try {
      const freshTarget = targetOf(this.readStore, fresh);
      const transaction = this.readStore.transaction?.bind(this.readStore);
      if (transaction) {
        // 1-2. A store with transactions (embedded SQLite) rebuilds straight into the fresh
        //      collections, one transaction per batch of events (memory stays bounded). Where
        //      this process serves nothing (the admin CLI) it creates their indexes (but unique
        //      ones) after the rows, a bulk load, much faster; a server keeps them row by row,
        //      since building an index over many rows holds its event loop.
        for (const p of projections) for (const logical of p.collections) created.push(fresh(logical));
        for (const name of created) await this.readStore.collection(name).drop();
        const bulk = this.engine.health().started ? { target: freshTarget, createDeferred: async () => undefined } : deferIndexes(freshTarget);
        for (const p of projections) await p.setup?.(bulk.target);
        for (;;) {
          const batch = await this.events.readAll({ after: position, maxCount: REPLAY_BATCH });
          await transaction(() => applyBatch(batch, bulk.target));
          if (batch.length < REPLAY_BATCH) break;
        }
        update({ phase: 'copying', events_done: done }); // the indexes over the rebuilt rows
        await bulk.createDeferred();
      } else {
        // 1. Rebuild in staging.
        const staging = new StagingReadStore();
        const stagingTarget = targetOf(staging);
        for (const p of projections) await p.setup?.(stagingTarget);
        await catchUp(stagingTarget);

        // 2. Copy into fresh collections of the read store, then create the indexes.
        update({ phase: 'copying', events_done: done });
        for (const p of projections) {
          for (const logical of p.collections) {
            const dst = this.readStore.collection(fresh(logical));
            created.push(fresh(logical));
            await dst.drop();
            let chunk: Promise<void>[] = [];
            for (const doc of staging.collection(logical).all()) {
              chunk.push(dst.insertOne(doc));
              if (chunk.length >= COPY_CONCURRENCY) {
                await Promise.all(chunk);
                chunk = [];
              }
            }
            await Promise.all(chunk);
          }
        }
        await staging.close();
        for (const p of projections) await p.setup?.(freshTarget);
      }

      // 3. Tail and switch while the live loops wait: this process's, and those of other
      //    processes sharing the read store. With transactions the switch is one transaction,
      //    which the other processes' projection batches cannot interleave with; otherwise
      //    (MongoDB) their loops are held.
      update({ phase: 'switching' });
      const hold = <T>(fn: () => Promise<T>) => (transaction ? transaction(fn) : this.engine.holdOtherProcesses(fn));
      await this.engine.pauseProjections(() => hold(async () => {
        await catchUp(freshTarget);
        for (const p of projections) {
          for (const logical of p.collections) {
            await this.readStore.renameCollection(fresh(logical), logical);
            created.splice(created.indexOf(fresh(logical)), 1);
          }
        }
        for (const p of projections) await this.engine.setProjectionCheckpoint(p.name, position, id);
      }));
      update({ events_done: done });
      return done;
    } catch (err) {
      for (const name of created) {
        await this.readStore
          .collection(name)
          .drop()
          .catch(() => undefined);
      }
      throw err;
    }
  }

  /**
   * Appends the run to the audit trail (`replay-<id>` stream) and waits until it is listed;
   * the replay is done either way, so a lag of the listing (ProjectionLagError) is logged, not
   * raised.
   */
  private async record(id: string, all: boolean, result: ReplayResult): Promise<void> {
    const event: ReplayCompleted = {
      type: REPLAY_COMPLETED,
      data: { replay_id: id, all, projections: result.projections, events: result.events, seconds: result.seconds },
    };
    const appended = await this.events.appendToStream(streamName('replay', id), [toNewEvent(event)], { expectedRevision: 'no_stream' });
    if (!(await caughtUp(this.engine.waitFor(appended.position)))) this.logger.warn(`replay ${id} is recorded; the replay list shows it once the projections caught up`);
  }
}
