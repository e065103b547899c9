/**
 * Read store port: documents with Mongo-style filters, so the same projection code runs on
 * MongoDB in production and on the embedded store by default. Documents are plain JSON
 * objects keyed by a string `_id`. Values are JSON types plus Date is NOT used: times are
 * ISO strings (they sort correctly as strings).
 */
export type Doc = { _id: string } & Record<string, unknown>;

/** A Mongo query filter ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $regex, $and, $or, ...). */
export type Filter = Record<string, unknown>;

/** A Mongo update document with operators ($set, $unset, $inc, $push, $pull, ...). */
export type Update = Record<string, unknown>;

export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  readonly sort?: Sort;
  readonly skip?: number;
  readonly limit?: number;
}

export interface IndexSpec {
  readonly keys: Record<string, 1 | -1>;
  readonly unique?: boolean;
  readonly name?: string;
  /**
   * A substring search index over the string fields of `keys` (directions are ignored): a
   * store that has one uses it to narrow case-insensitive `$regex` searches for literal text
   * (an `$or` of such regexes over these fields, as the task list's `q` makes). Results are
   * the same with or without it; stores without such indexes (MongoDB) ignore the spec.
   */
  readonly search?: boolean;
}

/** Raised when an insert or upsert would duplicate a unique key (`_id` or a unique index). */
export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, readonly key: string) {
    super(`duplicate key in ${collection}: ${key}`);
    this.name = 'DuplicateKeyError';
  }
}

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter: Filter): Promise<number>;
  insertOne(doc: T): Promise<void>;
  /** Replaces the matched document; with upsert, inserts `doc` when none matches. */
  replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<{ matched: number; upserted: boolean }>;
  /** Applies update operators to the first matched document; with upsert, creates it from the filter's equalities. */
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<{ matched: number; upserted: boolean }>;
  updateMany(filter: Filter, update: Update): Promise<{ matched: number }>;
  deleteOne(filter: Filter): Promise<{ deleted: number }>;
  deleteMany(filter: Filter): Promise<{ deleted: number }>;
  createIndex(spec: IndexSpec): Promise<void>;
  /** Removes the collection with its documents and indexes. */
  drop(): Promise<void>;
}

export abstract class ReadStore {
  abstract collection<T extends Doc = Doc>(name: string): Collection<T>;
  /**
   * Atomically replaces collection `to` by collection `from` (`from` ceases to exist).
   * Used by replays: rebuild into a fresh collection, then switch.
   */
  abstract renameCollection(from: string, to: string): Promise<void>;
  abstract listCollections(): Promise<string[]>;
  /**
   * Capability of stores whose writes can be grouped (the embedded SQLite store): runs `fn`,
   * and every write it makes through this store, as one transaction, committed when `fn`
   * resolves and rolled back when it throws. Writes of other callers meanwhile wait for it.
   * The projection loop stores each batch's documents and checkpoints this way, and replays
   * rebuild and switch this way. Stores without it (MongoDB) leave it undefined.
   */
  transaction?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Capability of stores that can tell cheaply whether documents changed (the embedded SQLite
   * store): a number equal at two calls only if no document of `collections` changed in
   * between, in this process or another. A cache of documents read after taking it stays
   * exact while it is unchanged. Stores without it (MongoDB) leave it undefined: read again.
   */
  changeStamp?(collections: readonly string[]): number;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}
