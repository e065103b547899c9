import { DuplicateKeyError, type ReadStore } from '@gensvc/event-sourcing';
import { LeaseStore } from '@gensvc/event-sourcing';

interface LeaseDoc extends Record<string, unknown> {
  _id: string;
  owner: string;
  expires_at: number;
}

/**
 * Leases as documents of a read-store collection (production: MongoDB, shared by every
 * process). A claim is a conditional update (the key is free, expired or already ours) and,
 * when no document exists yet, an insert whose unique `_id` decides between racing
 * processes.
 */
export class ReadStoreLeaseStore extends LeaseStore {
  constructor(
    private readonly store: ReadStore,
    private readonly collection = 'leases',
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  private get docs() {
    return this.store.collection<LeaseDoc>(this.collection);
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const expires_at = now + ttlMs;
    const updated = await this.docs.updateOne({ _id: key, $or: [{ expires_at: { $lte: now } }, { owner }] }, { $set: { owner, expires_at } });
    if (updated.matched) return true;
    try {
      await this.docs.insertOne({ _id: key, owner, expires_at });
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  async renew(keys: readonly string[], owner: string, ttlMs: number): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    await this.docs.updateMany({ _id: { $in: [...keys] }, owner }, { $set: { expires_at: this.now() + ttlMs } });
    return new Set((await this.docs.find({ _id: { $in: [...keys] }, owner })).map((d) => d._id));
  }

  async release(key: string, owner: string): Promise<void> {
    await this.docs.deleteOne({ _id: key, owner });
  }

  async holder(key: string): Promise<{ owner: string; expiresAt: number } | null> {
    const doc = await this.docs.findOne({ _id: key });
    return doc && doc.expires_at > this.now() ? { owner: doc.owner, expiresAt: doc.expires_at } : null;
  }

  async close(): Promise<void> {
    // The read store is closed by its owner.
  }
}
