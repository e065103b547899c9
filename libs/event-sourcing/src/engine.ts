import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { RequestContexts } from './request-context';
import { LeaseStore } from './lease-store.port';
import { ProjectionLagError } from './projection-lag.error';
import { DuplicateKeyError, ReadStore } from './read-store/read-store.port';
import type { RecordedEvent } from '@gensvc/kernel';
import { CheckpointStore, EventStore } from './event-store.port';
import { deferIndexes, targetOf, type Projection } from './projection';
import type { Reactor } from './reactor';

/** Class decorator: the provider is a projection (implements `Projection`). */
export const AsProjection = DiscoveryService.createDecorator();
/** Class decorator: the provider is a reactor (implements `Reactor`). */
export const AsReactor = DiscoveryService.createDecorator();

const CHECKPOINTS = 'projection_checkpoints';
const BATCH = 500;
/** Events per projection batch until the loop first caught up (a start behind, nobody waiting on a command yet). */
const CATCH_UP_BATCH = 2000;
const POLL_MS = 200;
/** Document in CHECKPOINTS by which a replay in another process pauses this process's projection loop. */
const HOLD = '~replay-hold';
const HOLD_TTL_MS = 30_000;
/**
 * Checkpoints of projections and reactors are stored at most this often (and when the loop
 * stops): both are idempotent, so a crash only redelivers the events of the last interval.
 */
const CHECKPOINT_EVERY_MS = 250;
/**
 * Time to live of the lease (`reactor:<name>`) by which one process at a time runs an
 * exclusive reactor; the holder renews it at least every third of it, and another process
 * takes the reactor over this long after the holder died.
 */
const REACTOR_LEASE_MS = 15_000;
/** How often a process that does not run an exclusive reactor looks whether it may. */
const REACTOR_LEASE_RETRY_MS = 1000;
/** How often the projection loop looks for a replay hold of another process. */
const HOLD_CHECK_MS = 50;

interface HoldDoc extends Record<string, unknown> {
  _id: string;
  hold_id: string;
  owner: string;
  acks: string[];
  expires_at: number;
}

interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs projections and reactors from the event store: the only way events reach read
 * models and sagas. Each subscription keeps a checkpoint and polls the store (woken early
 * by appends of this process), so events written by other processes arrive too.
 */
@Injectable()
export class SubscriptionEngine implements OnApplicationShutdown {
  private readonly logger = new Logger('Subscriptions');
  private projections: Projection[] = [];
  private reactors: Reactor[] = [];
  private readonly loops: Loop[] = [];
  /** Position every projection has applied. */
  private projected = -1n;
  private readonly waiters = new Set<{ position: bigint; resolve: () => void }>();
  /** Called when `projected` moves (see `onProjected`), and the position they were last called with. */
  private readonly projectedListeners = new Set<(position: bigint) => void>();
  private announced = -1n;
  private started = false;
  private lastError: string | undefined;
  /** Per projection: applied position and checkpoint generation (changed by replays). */
  private readonly positions = new Map<string, bigint>();
  private readonly generations = new Map<string, string | null>();
  /** Serializes projection batches with `pauseProjections`. */
  private gate: Promise<unknown> = Promise.resolve();
  /** Stores the projection checkpoints not stored yet (set while the projection loop runs). */
  private flushCheckpoints: (() => Promise<void>) | undefined;
  /** Identifies this engine in replay holds. */
  private readonly instanceId = randomUUID();

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly checkpoints: CheckpointStore,
    private readonly discovery: DiscoveryService,
    private readonly leases: LeaseStore,
  ) {}

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
    for (const r of this.reactors) out.set(r.name, (await this.checkpoints.load(`reactor:${r.name}`)) ?? -1n);
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
  async holdOtherProcesses<T>(fn: () => Promise<T>, waitMs = 2000): Promise<T> {
    const holds = this.readStore.collection<HoldDoc>(CHECKPOINTS);
    const holdId = randomUUID();
    const doc: HoldDoc = { _id: HOLD, hold_id: holdId, owner: this.instanceId, acks: [], expires_at: Date.now() + HOLD_TTL_MS };
    const taken = await holds.replaceOne({ _id: HOLD, expires_at: { $lte: Date.now() } }, doc);
    if (!taken.matched) {
      try {
        await holds.insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new Error('another replay is switching collections right now');
        throw err;
      }
    }
    try {
      const deadline = Date.now() + waitMs;
      let firstAck: number | undefined;
      while (Date.now() < deadline) {
        const current = await holds.findOne({ _id: HOLD, hold_id: holdId });
        if (!current) throw new Error('the replay hold was lost');
        if (current.acks.length) firstAck ??= Date.now();
        // after the first acknowledgement, give slower processes two more polls
        if (firstAck !== undefined && Date.now() - firstAck >= 2 * POLL_MS) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      return await fn();
    } finally {
      await holds.deleteOne({ _id: HOLD, hold_id: holdId });
    }
  }

  /** Whether a replay elsewhere holds the projection loop; acknowledges the hold. */
  private async heldByReplay(): Promise<boolean> {
    const holds = this.readStore.collection<HoldDoc>(CHECKPOINTS);
    const hold = await holds.findOne({ _id: HOLD });
    if (!hold || hold.owner === this.instanceId || hold.expires_at <= Date.now()) return false;
    if (!hold.acks.includes(this.instanceId)) await holds.updateOne({ _id: HOLD, hold_id: hold.hold_id }, { $addToSet: { acks: this.instanceId } });
    return true;
  }

  /**
   * Stores a projection's checkpoint under a new generation (after a replay switched its
   * collections in) and makes the running loop continue from it. Call inside
   * `pauseProjections`. A loop in another process notices the new generation when it next
   * stores its checkpoint and continues from the replay's position too (projections are
   * idempotent, so events applied twice are harmless).
   */
  async setProjectionCheckpoint(name: string, position: bigint, generation: string): Promise<void> {
    await this.readStore
      .collection(CHECKPOINTS)
      .replaceOne({ _id: name }, { _id: name, position: String(position), generation }, { upsert: true });
    if (this.positions.size) {
      this.positions.set(name, position);
      this.generations.set(name, generation);
      this.projected = [...this.positions.values()].reduce((a, b) => (a < b ? a : b));
      this.release();
    }
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
    const neverRan = this.readStore.transaction ? await this.projectionsNeverRun() : new Set<string>();
    for (const p of this.projections) await p.setup?.(neverRan.has(p.name) ? bulk.target : target);
    const caughtUp = new Promise<void>((resolve) => {
      this.loops.push(this.projectionLoop(resolve));
    });
    await caughtUp;
    await bulk.createDeferred();
    if (options.reactors !== false) for (const r of this.reactors) this.loops.push(this.reactorLoop(r));
  }

  /**
   * Resolves when every projection has applied `position` (read-your-writes for commands).
   * Rejects with `ProjectionLagError` when they have not within `timeoutMs`: the event is
   * stored all the same, only the read models lag (see the error for how callers answer).
   */
  async waitFor(position: bigint | undefined, timeoutMs = 5000): Promise<void> {
    if (position === undefined || !this.started || this.projected >= position) return;
    await new Promise<void>((resolve, reject) => {
      const w = {
        position,
        resolve: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(new ProjectionLagError(position, this.projected, timeoutMs));
      }, timeoutMs);
      this.waiters.add(w);
    });
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
    this.projectedListeners.add(listener);
    return () => this.projectedListeners.delete(listener);
  }

  /** Position the projections have applied (-1n before any). */
  projectedPosition(): bigint {
    return this.projected;
  }

  health(): { started: boolean; projected: bigint; lastError?: string } {
    return { started: this.started, projected: this.projected, lastError: this.lastError };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.splice(0).map((l) => l.stop()));
    await this.flushCheckpoints?.();
    this.flushCheckpoints = undefined;
    this.positions.clear();
    this.generations.clear();
    this.started = false;
  }

  /** Names of the projections without a stored checkpoint. */
  private async projectionsNeverRun(): Promise<Set<string>> {
    const names = this.projections.map((p) => p.name);
    const stored = await this.readStore.collection(CHECKPOINTS).find({ _id: { $in: names } });
    return new Set(names.filter((n) => !stored.some((d) => d._id === n)));
  }

  private async loadProjectionCheckpoint(name: string): Promise<bigint> {
    const doc = await this.readStore
      .collection<{ _id: string; position: string; generation?: string | null }>(CHECKPOINTS)
      .findOne({ _id: name });
    this.generations.set(name, doc?.generation ?? null);
    return doc ? BigInt(doc.position) : -1n;
  }

  /** Stores a checkpoint unless a replay replaced it meanwhile; then adopts the replay's. */
  private async storeProjectionCheckpoint(name: string): Promise<void> {
    const generation = this.generations.get(name) ?? null;
    const doc = { _id: name, position: String(this.positions.get(name) ?? -1n), generation };
    try {
      await this.readStore.collection(CHECKPOINTS).replaceOne({ _id: name, generation }, doc, { upsert: true });
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      this.positions.set(name, await this.loadProjectionCheckpoint(name));
      this.projected = [...this.positions.values()].reduce((a, b) => (a < b ? a : b));
      this.logger.log(`projection ${name} was rebuilt by a replay elsewhere; continuing from its checkpoint`);
    }
  }

  private projectionLoop(onCaughtUp: () => void): Loop {
    if (this.readStore.transaction) return this.transactionalProjectionLoop(onCaughtUp);
    const target = targetOf(this.readStore);
    const positions = this.positions;
    let held = false;
    /** Checkpoints are stored after every batch until the first catch-up, then every 250 ms. */
    let caughtUp = false;
    let holdCheckedAt = 0;
    let storedAt = Date.now();
    const stored = new Map<string, bigint>();
    const storeCheckpoints = async () => {
      storedAt = Date.now();
      for (const p of this.projections) {
        const at = positions.get(p.name);
        if (at === undefined || stored.get(p.name) === at) continue;
        await this.storeProjectionCheckpoint(p.name);
        stored.set(p.name, positions.get(p.name)!);
      }
    };
    this.flushCheckpoints = () => this.pauseProjections(storeCheckpoints);
    return this.loop('projections', () => this.pauseProjections(async () => {
      if (held || Date.now() - holdCheckedAt >= HOLD_CHECK_MS) {
        holdCheckedAt = Date.now();
        if (await this.heldByReplay()) {
          held = true;
          return false;
        }
      }
      if (held) {
        held = false;
        positions.clear(); // a replay elsewhere switched collections in: continue from the stored checkpoints
        stored.clear();
      }
      if (positions.size === 0) {
        for (const p of this.projections) positions.set(p.name, await this.loadProjectionCheckpoint(p.name));
        this.projected = this.projections.length ? [...positions.values()].reduce((a, b) => (a < b ? a : b)) : await this.events.headPosition();
      }
      if (!this.projections.length) {
        this.projected = await this.events.headPosition();
        this.release();
        onCaughtUp();
        return false;
      }
      const batch = await this.events.readAll({ after: this.projected, maxCount: BATCH });
      for (const event of batch) {
        for (const p of this.projections) {
          if ((positions.get(p.name) ?? -1n) >= event.position) continue;
          if (p.handles.includes(event.type)) await p.apply(event, target);
          positions.set(p.name, event.position);
        }
        this.projected = event.position;
      }
      if (batch.length) {
        this.release();
        if (!caughtUp || Date.now() - storedAt >= CHECKPOINT_EVERY_MS) await storeCheckpoints();
      }
      if (batch.length < BATCH) {
        this.release();
        caughtUp = true;
        onCaughtUp();
      }
      return batch.length === BATCH;
    }));
  }

  /**
   * The projection loop on a store with transactions (the embedded SQLite store): each batch
   * is one transaction that reads the stored checkpoints, applies the events after them and
   * stores the new checkpoints with the documents. A crash loses the batch whole, and
   * processes sharing the store take turns (the transaction holds the file's write lock), each
   * continuing from what the other committed: every event is applied once. A replay switches
   * its rebuilt collections and checkpoints in one such transaction, so no hold is needed.
   */
  private transactionalProjectionLoop(onCaughtUp: () => void): Loop {
    const target = targetOf(this.readStore);
    const positions = this.positions;
    const checkpoints = this.readStore.collection<{ _id: string; position: string; generation?: string | null }>(CHECKPOINTS);
    const names = () => this.projections.map((p) => p.name);
    const lowest = () => [...positions.values()].reduce((a, b) => (a < b ? a : b));
    let caughtUp = false;
    /** Per projection, the position its stored checkpoint holds (as far as this loop knows). */
    const stored = new Map<string, bigint>();
    let storedAllAt = 0;
    /**
     * Reads the stored checkpoints. A checkpoint this loop left behind (below, only those of
     * projections that applied an event are stored with each batch) keeps the position
     * reached in memory; one of another generation (a replay switched its collections in)
     * or further on (another process applied more) is taken.
     */
    const load = async () => {
      const docs = new Map((await checkpoints.find({ _id: { $in: names() } })).map((d) => [d._id, d]));
      for (const p of this.projections) {
        const doc = docs.get(p.name);
        const at = doc ? BigInt(doc.position) : -1n;
        const generation = doc?.generation ?? null;
        const mine = positions.get(p.name);
        stored.set(p.name, at);
        if (mine !== undefined && this.generations.get(p.name) === generation && mine > at) continue;
        positions.set(p.name, at);
        this.generations.set(p.name, generation);
      }
    };
    const write = async (name: string) => {
      const at = positions.get(name)!;
      if (stored.get(name) === at) return;
      await checkpoints.replaceOne({ _id: name }, { _id: name, position: String(at), generation: this.generations.get(name) ?? null }, { upsert: true });
      stored.set(name, at);
    };
    // On stop, the positions not stored yet are stored (in a transaction of their own).
    this.flushCheckpoints = () =>
      this.pauseProjections(async () => {
        if (!positions.size) return;
        await this.readStore.transaction!(async () => {
          await load();
          for (const p of this.projections) await write(p.name);
        });
      });
    return this.loop('projections', () => this.pauseProjections(async () => {
      if (!this.projections.length) {
        this.projected = await this.events.headPosition();
        this.release();
        caughtUp = true;
        onCaughtUp();
        return false;
      }
      if (positions.size === 0) {
        await load();
        this.projected = lowest();
      }
      // Nothing stored after what the stored checkpoints say is applied: no transaction. (They
      // are read again: a replay elsewhere may have moved them.)
      const head = await this.events.headPosition();
      if (head <= this.projected) {
        await load();
        if (lowest() >= head) {
          this.projected = lowest();
          this.release();
          caughtUp = true;
          onCaughtUp();
          return false;
        }
      }
      let read = 0;
      const size = caughtUp ? BATCH : CATCH_UP_BATCH;
      await this.readStore.transaction!(async () => {
        await load();
        const applied = new Set<string>();
        const batch = await this.events.readAll({ after: lowest(), maxCount: size });
        read = batch.length;
        for (const event of batch) {
          for (const p of this.projections) {
            if ((positions.get(p.name) ?? -1n) >= event.position) continue;
            if (p.handles.includes(event.type)) {
              await p.apply(event, target);
              applied.add(p.name);
            }
            positions.set(p.name, event.position);
          }
        }
        // The checkpoint of a projection that applied an event is stored with its documents.
        // One that only skipped events keeps its stored position for up to 250 ms (and until
        // the first catch-up): a restart or another process then reads those events again
        // and skips them again, while this loop continues from the position in memory.
        const all = !caughtUp || Date.now() - storedAllAt >= CHECKPOINT_EVERY_MS;
        if (all) storedAllAt = Date.now();
        for (const p of this.projections) if (all || applied.has(p.name)) await write(p.name);
      }).catch(async (err) => {
        positions.clear(); // reloaded from the store on the next step
        stored.clear();
        throw err;
      });
      this.projected = lowest();
      this.release();
      if (read < size) {
        caughtUp = true;
        onCaughtUp();
      }
      return read === size;
    }));
  }

  /**
   * One loop per reactor. An exclusive reactor steps only while this process holds its lease
   * (`reactor:<name>`, renewed as it runs): one process across those sharing the stores runs
   * it. A process that takes it over (the holder stopped or died) reads the stored checkpoint
   * first, so it continues where the holder last stored (at least once, as after a crash).
   */
  private reactorLoop(reactor: Reactor): Loop {
    const name = `reactor:${reactor.name}`;
    let position: bigint | undefined;
    let stored: bigint | undefined;
    let storedAt = 0;
    const store = async () => {
      if (position === undefined || position === stored) return;
      const at = position;
      storedAt = Date.now();
      await this.checkpoints.store(name, at);
      stored = at;
    };
    const leases = reactor.exclusive ? this.leases : undefined;
    let holdsUntil = 0;
    let nextTry = 0;
    /** Whether this process runs the exclusive reactor now (takes or renews its lease). */
    const mayRun = async (): Promise<boolean> => {
      if (!leases) return true;
      const now = Date.now();
      if (holdsUntil - now > (REACTOR_LEASE_MS * 2) / 3) return true;
      if (holdsUntil <= now && now < nextTry) return false;
      if (await leases.acquire(name, this.instanceId, REACTOR_LEASE_MS)) {
        if (holdsUntil <= now) position = stored = undefined; // taking over: read the stored checkpoint
        holdsUntil = now + REACTOR_LEASE_MS;
        return true;
      }
      holdsUntil = 0;
      nextTry = now + REACTOR_LEASE_RETRY_MS;
      return false;
    };
    return this.loop(
      `reactor ${reactor.name}`,
      async () => {
        if (!(await mayRun())) return false;
        if (position === undefined) stored = position = (await this.checkpoints.load(name)) ?? -1n;
        const batch = await this.events.readAll({ after: position, maxCount: 100 });
        try {
          for (const event of batch) {
            if (reactor.handles.includes(event.type)) await this.deliver(reactor, event);
            position = event.position;
          }
        } finally {
          // A durable checkpoint at most every 250 ms (also when a handler failed part-way)
          // and when the loop stops: after a crash the events of the last interval are
          // delivered again, which idempotent handlers absorb.
          if (Date.now() - storedAt >= CHECKPOINT_EVERY_MS) await store();
        }
        return batch.length === 100;
      },
      async () => {
        await store();
        // Hand an exclusive reactor over at once instead of after the lease's time to live.
        if (leases && holdsUntil > Date.now()) await leases.release(name, this.instanceId).catch(() => undefined);
      },
    );
  }

  private deliver(reactor: Reactor, event: RecordedEvent): Promise<void> {
    return RequestContexts.run(
      { requestId: event.metadata.correlationId ?? event.id, causationId: event.id, actor: `system:${reactor.name}` },
      () => reactor.handle(event),
    );
  }

  /**
   * Runs `step` until stopped: again at once while it reports more work, otherwise on the
   * next append of this process or after the poll interval. Failures back off and retry.
   */
  private loop(name: string, step: () => Promise<boolean>, onStop?: () => Promise<void>): Loop {
    let stopped = false;
    let wake: (() => void) | undefined;
    const unsubscribe = this.events.onAppended(() => wake?.());
    let failures = 0;
    const done = (async () => {
      while (!stopped) {
        let more = false;
        try {
          more = await step();
          failures = 0;
        } catch (err) {
          failures++;
          this.lastError = `${name}: ${(err as Error).message}`;
          this.logger.error({ err, subscription: name, failures }, 'subscription step failed; retrying');
        }
        if (stopped) break;
        if (more) continue;
        const delay = failures ? Math.min(100 * 2 ** failures, 10_000) : POLL_MS;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delay);
          wake = failures
            ? undefined
            : () => {
                clearTimeout(t);
                resolve();
              };
        });
        wake = undefined;
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        unsubscribe();
        await done;
        await onStop?.();
      },
    };
  }

  private release(): void {
    for (const w of [...this.waiters]) if (this.projected >= w.position) w.resolve();
    if (this.projected === this.announced) return;
    this.announced = this.projected;
    for (const listener of this.projectedListeners) listener(this.projected);
  }
}
