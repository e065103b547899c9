import type { Collection, Doc, Filter, Sort } from '../read-store/read-store.port';

/**
 * One operation on a read model collection, for model-based tests that run the same random
 * sequence on two stores (a store against the embedded one, a transaction against none) and
 * compare every answer.
 */
export type CollectionOp =
  | { op: 'insertOne'; doc: Doc }
  | { op: 'replaceOne'; filter: Filter; doc: Doc; upsert: boolean }
  | { op: 'updateOne'; filter: Filter; update: Record<string, unknown>; upsert: boolean }
  | { op: 'updateMany'; filter: Filter; update: Record<string, unknown> }
  | { op: 'deleteOne' | 'deleteMany' | 'findOne' | 'count'; filter: Filter }
  | { op: 'find'; filter: Filter; limit: number; sort?: Sort }
  /** A unique index on `email`; a compound index on `status` and `n`. */
  | { op: 'uniqueEmail' | 'indexStatus' };

/** Runs `op` on `c`: what it answered, or the name of the error it threw. */
export async function runCollectionOp(c: Collection, op: CollectionOp): Promise<unknown> {
  try {
    switch (op.op) {
      case 'insertOne':
        return await c.insertOne(op.doc);
      case 'replaceOne':
        return await c.replaceOne(op.filter, op.doc, { upsert: op.upsert });
      case 'updateOne':
        return await c.updateOne(op.filter, op.update, { upsert: op.upsert });
      case 'updateMany':
        return await c.updateMany(op.filter, op.update);
      case 'deleteOne':
        return await c.deleteOne(op.filter);
      case 'deleteMany':
        return await c.deleteMany(op.filter);
      case 'findOne':
        return await c.findOne(op.filter);
      case 'count':
        return await c.count(op.filter);
      case 'find':
        return await c.find(op.filter, { ...(op.sort ? { sort: op.sort } : {}), limit: op.limit });
      case 'uniqueEmail':
        return await c.createIndex({ keys: { email: 1 }, unique: true });
      case 'indexStatus':
        return await c.createIndex({ keys: { status: 1, n: -1 } });
    }
  } catch (err) {
    return { threw: (err as Error).name };
  }
}
