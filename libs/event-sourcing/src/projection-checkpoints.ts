import type { Logger } from '@nestjs/common';
import type { ProjectedPosition } from './projected-position';
import { DuplicateKeyError, type ReadStore } from './read-store/read-store.port';

/** The read store collection of the projections' checkpoints (beside their documents). */
export const CHECKPOINTS = 'projection_checkpoints';

/** A projection's stored checkpoint: the position it applied, under the generation of its collections (changed by replays). */
export interface CheckpointDoc extends Record<string, unknown> {
  _id: string;
  position: string;
  generation?: string | null;
}

/**
 * The projections' checkpoints, stored in the read store with their documents, and the
 * positions the projection loop of this process has applied (per projection, with the
 * generation of its checkpoint). A replay that rebuilt a projection's collections stores its
 * checkpoint under a new generation; a loop that finds another generation continues from it.
 */
export class ProjectionCheckpoints {
  /** Per projection: applied position and checkpoint generation (changed by replays). */
  readonly positions = new Map<string, bigint>();
  readonly generations = new Map<string, string | null>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly progress: ProjectedPosition,
    private readonly logger: Logger,
  ) {}

  /** The lowest applied position (the positions must not be empty). */
  lowest(): bigint {
    return [...this.positions.values()].reduce((a, b) => (a < b ? a : b));
  }

  /** Names of the projections without a stored checkpoint. */
  async neverRun(names: string[]): Promise<Set<string>> {
    const stored = await this.readStore.collection(CHECKPOINTS).find({ _id: { $in: names } });
    return new Set(names.filter((n) => !stored.some((d) => d._id === n)));
  }

  /** A projection's stored position (-1n when none), its generation remembered. */
  async load(name: string): Promise<bigint> {
    const doc = await this.readStore.collection<CheckpointDoc>(CHECKPOINTS).findOne({ _id: name });
    this.generations.set(name, doc?.generation ?? null);
    return doc ? BigInt(doc.position) : -1n;
  }

  /** Stores a checkpoint unless a replay replaced it meanwhile; then adopts the replay's. */
  async store(name: string): Promise<void> {
    const generation = this.generations.get(name) ?? null;
    const doc = { _id: name, position: String(this.positions.get(name) ?? -1n), generation };
    try {
      await this.readStore.collection(CHECKPOINTS).replaceOne({ _id: name, generation }, doc, { upsert: true });
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      this.positions.set(name, await this.load(name));
      this.progress.value = this.lowest();
      this.logger.log(`projection ${name} was rebuilt by a replay elsewhere; continuing from its checkpoint`);
    }
  }

  /** Stores a checkpoint under a new generation (see `SubscriptionEngine.setProjectionCheckpoint`); a running loop continues from it. */
  async replace(name: string, position: bigint, generation: string): Promise<void> {
    await this.readStore.collection(CHECKPOINTS).replaceOne({ _id: name }, { _id: name, position: String(position), generation }, { upsert: true });
    if (this.positions.size) {
      this.positions.set(name, position);
      this.generations.set(name, generation);
      this.progress.value = this.lowest();
      this.progress.release();
    }
  }

  /** Forgets the positions (the loop stopped: a start reads the stored checkpoints). */
  clear(): void {
    this.positions.clear();
    this.generations.clear();
  }
}
