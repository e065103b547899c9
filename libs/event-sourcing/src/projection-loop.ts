import type { EventStore } from './event-store.port';
import type { ProjectedPosition } from './projected-position';
import { targetOf, type Projection } from './projection';
import type { ProjectionCheckpoints } from './projection-checkpoints';
import type { ReadStore } from './read-store/read-store.port';
import type { ReplayHold } from './replay-hold';
import { CHECKPOINT_EVERY_MS, type Loop } from './subscription-loop';

/** Events per projection batch. */
export const BATCH = 500;
/** How often the projection loop looks for a replay hold of another process. */
const HOLD_CHECK_MS = 50;

/** What the projection loop works with (the engine's). */
export interface ProjectionLoopContext {
  readonly events: EventStore;
  readonly readStore: ReadStore;
  /** The projections, as discovered. */
  projections(): readonly Projection[];
  readonly checkpoints: ProjectionCheckpoints;
  readonly progress: ProjectedPosition;
  readonly holds: ReplayHold;
  /** Runs `fn` between two batches (see `SubscriptionEngine.pauseProjections`). */
  pause<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs a step until stopped (see `subscriptionLoop`). */
  loop(name: string, step: () => Promise<boolean>, onStop?: () => Promise<void>): Loop;
}

/** The running projection loop, and what stores the checkpoints it has not stored yet (when it stops). */
export interface ProjectionLoop {
  readonly loop: Loop;
  readonly flush: () => Promise<void>;
}

/**
 * The loop that applies the events to every projection, in order, from their checkpoints, on a
 * store without transactions (a store with them runs `transactionalProjectionLoop`);
 * `onCaughtUp` is called each time it has read to the end of the log. Each batch applies the
 * events and moves the positions in memory; the checkpoints are stored after every batch until
 * the first catch-up, then at most every 250 ms and when the loop stops. A replay elsewhere
 * holds the loop (see `ReplayHold`) while it switches collections in; the loop then continues
 * from the stored checkpoints.
 */
export function projectionLoop(ctx: ProjectionLoopContext, onCaughtUp: () => void): ProjectionLoop {
  const target = targetOf(ctx.readStore);
  const positions = ctx.checkpoints.positions;
  let held = false;
  /** Checkpoints are stored after every batch until the first catch-up, then every 250 ms. */
  let caughtUp = false;
  let holdCheckedAt = 0;
  let storedAt = Date.now();
  const stored = new Map<string, bigint>();
  const storeCheckpoints = async () => {
    storedAt = Date.now();
    for (const p of ctx.projections()) {
      const at = positions.get(p.name);
      if (at === undefined || stored.get(p.name) === at) continue;
      await ctx.checkpoints.store(p.name);
      stored.set(p.name, positions.get(p.name)!);
    }
  };
  const flush = () => ctx.pause(storeCheckpoints);
  const loop = ctx.loop('projections', () => ctx.pause(async () => {
    if (held || Date.now() - holdCheckedAt >= HOLD_CHECK_MS) {
      holdCheckedAt = Date.now();
      if (await ctx.holds.heldByReplay()) {
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
      for (const p of ctx.projections()) positions.set(p.name, await ctx.checkpoints.load(p.name));
      ctx.progress.value = ctx.projections().length ? ctx.checkpoints.lowest() : await ctx.events.headPosition();
    }
    if (!ctx.projections().length) {
      ctx.progress.value = await ctx.events.headPosition();
      ctx.progress.release();
      onCaughtUp();
      return false;
    }
    const batch = await ctx.events.readAll({ after: ctx.progress.value, maxCount: BATCH });
    for (const event of batch) {
      for (const p of ctx.projections()) {
        if ((positions.get(p.name) ?? -1n) >= event.position) continue;
        if (p.handles.includes(event.type)) await p.apply(event, target);
        positions.set(p.name, event.position);
      }
      ctx.progress.value = event.position;
    }
    if (batch.length) {
      ctx.progress.release();
      if (!caughtUp || Date.now() - storedAt >= CHECKPOINT_EVERY_MS) await storeCheckpoints();
    }
    if (batch.length < BATCH) {
      ctx.progress.release();
      caughtUp = true;
      onCaughtUp();
    }
    return batch.length === BATCH;
  }));
  return { loop, flush };
}
