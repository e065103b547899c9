import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { LeaseStore } from './lease-store.port';
import { ReadStore } from './read-store/read-store.port';
import { CheckpointStore, EventStore } from './event-store.port';
import { deferIndexes, targetOf, type Projection } from './projection';
import { ProjectedPosition } from './projected-position';
import { ProjectionCheckpoints } from './projection-checkpoints';
import { projectionLoop, type ProjectionLoopContext } from './projection-loop';
import type { Reactor } from './reactor';
import { reactorCheckpointName, reactorSubscription } from './reactor-subscription';
import { ReplayHold } from './replay-hold';
import { subscriptionLoop, type Loop } from './subscription-loop';
import { transactionalProjectionLoop } from './transactional-projection-loop';

/** Class decorator: the provider is a projection (implements `Projection`). */
export const AsProjection = DiscoveryService.createDecorator();
/** Class decorator: the provider is a reactor (implements `Reactor`). */
export const AsReactor = DiscoveryService.createDecorator();

/**
 * Runs projections and reactors from the event store: the only way events reach read
 * models and sagas. Each subscription keeps a checkpoint and polls the store (woken early
 * by appends of this process), so events written by other processes arrive too.
 *
 * The parts: one loop for all projections (`projection-loop.ts`, or
 * `transactional-projection-loop.ts` on a store with transactions) from their checkpoints
 * (`projection-checkpoints.ts`), paused by replays elsewhere (`replay-hold.ts`); one loop
 * per reactor (`reactor-subscription.ts`, under a lease when exclusive); the position the
 * read models reached and who waits for it (`projected-position.ts`); the polling loop they
 * all run in (`subscription-loop.ts`).
 */
@Injectable()
export class SubscriptionEngine implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private projections: Projection[] = [];
  private reactors: Reactor[] = [];
  private readonly loops: Loop[] = [];
  /** Position every projection has applied, and the callers waiting for one. */
  private readonly progress = new ProjectedPosition();
  private readonly projectionCheckpoints: ProjectionCheckpoints;
  private readonly holds: ReplayHold;
  private started = false;
  private lastError: string | undefined;
  /** Serializes projection batches with `pauseProjections`. */
  private gate: Promise<unknown> = Promise.resolve();
  /** Stores the projection checkpoints not stored yet (set while the projection loop runs). */
  private flushCheckpoints: (() => Promise<void>) | undefined;
  /** Identifies this engine in replay holds and reactor leases. */
  private readonly instanceId = randomUUID();

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly checkpoints: CheckpointStore,
    private readonly discovery: DiscoveryService,
    private readonly leases: LeaseStore,
  ) {
    this.projectionCheckpoints = new ProjectionCheckpoints(readStore, this.progress, this.logger);
    this.holds = new ReplayHold(readStore, this.instanceId);
  }

  /** Discovers the projections and reactors of the composed modules. */
  discover(): void {
    const providers = (decorator: typeof AsProjection) =>
      this.discovery.getProviders({ metadataKey: decorator.KEY }).map((w) => w.instance).filter(Boolean);
    this.projections = providers(AsProjection) as Projection[];
    this.reactors = providers(AsReactor) as Reactor[];
    const names = [...this.projections, ...this.reactors].map((p) => p.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new Error(`two subscriptions are named ${dup}`);
  }

  listProjections(): readonly Projection[] {
    return this.projections;
  }

  listReactors(): readonly Reactor[] {
    return this.reactors;
  }

  /** Durable positions of the reactors (-1n before their first event). */
  async reactorPositions(): Promise<Map<string, bigint>> {
    const out = new Map<string, bigint>();
    for (const r of this.reactors) out.set(r.name, (await this.checkpoints.load(reactorCheckpointName(r))) ?? -1n);
    return out;
  }

  /**
   * Runs `fn` between two batches of the projection loop, which waits meanwhile (a replay
   * catches up and switches its rebuilt collections in here). Reads are not blocked.
   */
  pauseProjections<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.gate.then(fn, fn);
    this.gate = run.catch(() => undefined);
    return run;
  }

  /**
   * For a replay whose read store other processes share (MongoDB): pauses the projection
   * loops of every other process on that read store while `fn` switches rebuilt collections
   * in. Waits until they acknowledge the hold (or `waitMs` passes without an acknowledgement:
   * no other loop runs), runs `fn`, lifts the hold; they then continue from the stored
   * checkpoints. A hold expires after 30 s, so a crashed replay cannot stop them for good.
   */
  holdOtherProcesses<T>(fn: () => Promise<T>, waitMs = 2000): Promise<T> {
    return this.holds.holdOtherProcesses(fn, waitMs);
  }

  /**
   * Stores a projection's checkpoint under a new generation (after a replay switched its
   * collections in) and makes the running loop continue from it. Call inside
   * `pauseProjections`. A loop in another process notices the new generation when it next
   * stores its checkpoint and continues from the replay's position too (projections are
   * idempotent, so events applied twice are harmless).
   */
  setProjectionCheckpoint(name: string, position: bigint, generation: string): Promise<void> {
    return this.projectionCheckpoints.replace(name, position, generation);
  }

  /** Starts the projection loop and one loop per reactor. Resolves once projections caught up. */
  async start(options: { reactors?: boolean } = {}): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (!this.projections.length && !this.reactors.length) this.discover();
    const target = targetOf(this.readStore);
    // On the embedded store, projections that never ran (an empty read.db: a first start, an
    // upgrade, a projection added) fill their collections first and get their indexes (but
    // unique ones) once caught up, before the start resolves: a bulk load.
    const bulk = deferIndexes(target);
    const neverRun = this.readStore.transaction ? await this.projectionCheckpoints.neverRun(this.projections.map((p) => p.name)) : new Set<string>();
    for (const p of this.projections) await p.setup?.(neverRun.has(p.name) ? bulk.target : target);
    const caughtUp = new Promise<void>((resolve) => {
      const ctx = this.projectionLoopContext();
      const { loop, flush } = this.readStore.transaction ? transactionalProjectionLoop(ctx, resolve) : projectionLoop(ctx, resolve);
      this.flushCheckpoints = flush;
      this.loops.push(loop);
    });
    await caughtUp;
    await bulk.createDeferred();
    if (options.reactors !== false) {
      for (const r of this.reactors) {
        this.loops.push(reactorSubscription(r, { events: this.events, checkpoints: this.checkpoints, leases: this.leases, instanceId: this.instanceId, loop: (...a) => this.loop(...a) }));
      }
    }
  }

  /**
   * Resolves when every projection has applied `position` (read-your-writes for commands).
   * Rejects with `ProjectionLagError` when they have not within `timeoutMs`: the event is
   * stored all the same, only the read models lag (see the error for how callers answer).
   */
  async waitFor(position: bigint | undefined, timeoutMs = 5000): Promise<void> {
    if (position === undefined || !this.started || this.progress.value >= position) return;
    await this.progress.wait(position, timeoutMs);
  }

  /**
   * Calls `listener` (synchronously, so it must not throw or block) each time the read models
   * have moved to a new position: after a batch this process applied, and, on a read store
   * other processes share, after the batches they applied (this process's loop then adopts
   * their checkpoints, at the latest one poll interval after the events were stored). A read of
   * the read models after the call sees every change up to the position. Returns the
   * unsubscribe function.
   */
  onProjected(listener: (position: bigint) => void): () => void {
    return this.progress.onProjected(listener);
  }

  /** Position the projections have applied (-1n before any). */
  projectedPosition(): bigint {
    return this.progress.value;
  }

  health(): { started: boolean; projected: bigint; lastError?: string } {
    return { started: this.started, projected: this.progress.value, lastError: this.lastError };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.splice(0).map((l) => l.stop()));
    await this.flushCheckpoints?.();
    this.flushCheckpoints = undefined;
    this.projectionCheckpoints.clear();
    this.started = false;
  }

  private projectionLoopContext(): ProjectionLoopContext {
    return {
      events: this.events,
      readStore: this.readStore,
      projections: () => this.projections,
      checkpoints: this.projectionCheckpoints,
      progress: this.progress,
      holds: this.holds,
      pause: (fn) => this.pauseProjections(fn),
      loop: (...a) => this.loop(...a),
    };
  }

  /** A subscription loop whose failures are logged and reported by `health`. */
  private loop(name: string, step: () => Promise<boolean>, onStop?: () => Promise<void>): Loop {
    return subscriptionLoop(
      this.events,
      step,
      (err, failures) => {
        this.lastError = `${name}: ${(err as Error).message}`;
        this.logger.error({ err, subscription: name, failures }, 'subscription step failed; retrying');
      },
      onStop,
    );
  }
}
