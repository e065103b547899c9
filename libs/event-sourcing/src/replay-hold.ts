import { randomUUID } from 'node:crypto';
import { CHECKPOINTS } from './projection-checkpoints';
import { DuplicateKeyError, type ReadStore } from './read-store/read-store.port';
import { POLL_MS } from './subscription-loop';

/** Document in CHECKPOINTS by which a replay in another process pauses this process's projection loop. */
const HOLD = '~replay-hold';
const HOLD_TTL_MS = 30_000;

interface HoldDoc extends Record<string, unknown> {
  _id: string;
  hold_id: string;
  owner: string;
  acks: string[];
  expires_at: number;
}

/**
 * Replay holds on a read store other processes share (MongoDB): a replay pauses the
 * projection loops of the other processes while it switches rebuilt collections in. A hold is
 * a document beside the checkpoints, acknowledged by each loop it holds, and expires after
 * 30 s, so a crashed replay cannot stop them for good.
 */
export class ReplayHold {
  constructor(
    private readonly readStore: ReadStore,
    /** Identifies this process's engine in holds. */
    private readonly instanceId: string,
  ) {}

  /**
   * Pauses the projection loops of every other process on the read store while `fn` runs:
   * waits until they acknowledge the hold (or `waitMs` passes without an acknowledgement: no
   * other loop runs), runs `fn`, lifts the hold; they then continue from the stored
   * checkpoints.
   */
  async holdOtherProcesses<T>(fn: () => Promise<T>, waitMs: number): Promise<T> {
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
  async heldByReplay(): Promise<boolean> {
    const holds = this.readStore.collection<HoldDoc>(CHECKPOINTS);
    const hold = await holds.findOne({ _id: HOLD });
    if (!hold || hold.owner === this.instanceId || hold.expires_at <= Date.now()) return false;
    if (!hold.acks.includes(this.instanceId)) await holds.updateOne({ _id: HOLD, hold_id: hold.hold_id }, { $addToSet: { acks: this.instanceId } });
    return true;
  }
}
