import { targetOf } from './projection';
import { CHECKPOINTS, type CheckpointDoc } from './projection-checkpoints';
import { BATCH, type ProjectionLoop, type ProjectionLoopContext } from './projection-loop';
import { CHECKPOINT_EVERY_MS } from './subscription-loop';

/** Events per projection batch until the loop first caught up (a start behind, nobody waiting on a command yet). */
const CATCH_UP_BATCH = 2000;

/**
 * The projection loop on a store with transactions (the embedded SQLite store): each batch
 * is one transaction that reads the stored checkpoints, applies the events after them and
 * stores the new checkpoints with the documents. A crash loses the batch whole, and
 * processes sharing the store take turns (the transaction holds the file's write lock), each
 * continuing from what the other committed: every event is applied once. A replay switches
 * its rebuilt collections and checkpoints in one such transaction, so no hold is needed.
 */
export function transactionalProjectionLoop(ctx: ProjectionLoopContext, onCaughtUp: () => void): ProjectionLoop {
  const target = targetOf(ctx.readStore);
  const positions = ctx.checkpoints.positions;
  const checkpoints = ctx.readStore.collection<CheckpointDoc>(CHECKPOINTS);
  const names = () => ctx.projections().map((p) => p.name);
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
    for (const p of ctx.projections()) {
      const doc = docs.get(p.name);
      const at = doc ? BigInt(doc.position) : -1n;
      const generation = doc?.generation ?? null;
      const mine = positions.get(p.name);
      stored.set(p.name, at);
      if (mine !== undefined && ctx.checkpoints.generations.get(p.name) === generation && mine > at) continue;
      positions.set(p.name, at);
      ctx.checkpoints.generations.set(p.name, generation);
    }
  };
  const write = async (name: string) => {
    const at = positions.get(name)!;
    if (stored.get(name) === at) return;
    await checkpoints.replaceOne({ _id: name }, { _id: name, position: String(at), generation: ctx.checkpoints.generations.get(name) ?? null }, { upsert: true });
    stored.set(name, at);
  };
  // On stop, the positions not stored yet are stored (in a transaction of their own).
  const flush = () =>
    ctx.pause(async () => {
      if (!positions.size) return;
      await ctx.readStore.transaction!(async () => {
        await load();
        for (const p of ctx.projections()) await write(p.name);
      });
    });
  const loop = ctx.loop('projections', () => ctx.pause(async () => {
    if (!ctx.projections().length) {
      ctx.progress.value = await ctx.events.headPosition();
      ctx.progress.release();
      caughtUp = true;
      onCaughtUp();
      return false;
    }
    if (positions.size === 0) {
      await load();
      ctx.progress.value = ctx.checkpoints.lowest();
    }
    // Nothing stored after what the stored checkpoints say is applied: no transaction. (They
    // are read again: a replay elsewhere may have moved them.)
    const head = await ctx.events.headPosition();
    if (head <= ctx.progress.value) {
      await load();
      if (ctx.checkpoints.lowest() >= head) {
        ctx.progress.value = ctx.checkpoints.lowest();
        ctx.progress.release();
        caughtUp = true;
        onCaughtUp();
        return false;
      }
    }
    let read = 0;
    const size = caughtUp ? BATCH : CATCH_UP_BATCH;
    await ctx.readStore.transaction!(async () => {
      await load();
      const applied = new Set<string>();
      const batch = await ctx.events.readAll({ after: ctx.checkpoints.lowest(), maxCount: size });
      read = batch.length;
      for (const event of batch) {
        for (const p of ctx.projections()) {
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
      for (const p of ctx.projections()) if (all || applied.has(p.name)) await write(p.name);
    }).catch(async (err) => {
      positions.clear(); // reloaded from the store on the next step
      stored.clear();
      throw err;
    });
    ctx.progress.value = ctx.checkpoints.lowest();
    ctx.progress.release();
    if (read < size) {
      caughtUp = true;
      onCaughtUp();
    }
    return read === size;
  }));
  return { loop, flush };
}
