import { MongoClient, MongoServerError, type Db, type Collection as MongoCollection } from 'mongodb';
import { CheckpointStore } from '@gensvc/event-sourcing';
import { DuplicateKeyError, ReadStore, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Update } from '@gensvc/event-sourcing';

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const NOT_IMPLEMENTED = 238;

/**
 * Maps a duplicate key error to the port's error; anything else passes through. FerretDB v1
 * on SQLite reports a unique index violated by an update as an InternalError carrying
 * SQLite's "UNIQUE constraint failed" instead of code 11000; that is a duplicate key too.
 */
function mapError(collection: string, err: unknown): never {
  if (err instanceof MongoServerError) {
    if (err.code === DUPLICATE_KEY) throw new DuplicateKeyError(collection, err.keyValue ? JSON.stringify(err.keyValue) : err.message);
    if (/UNIQUE constraint failed/.test(err.message)) throw new DuplicateKeyError(collection, err.message.replace(/^.*UNIQUE constraint failed: /, ''));
  }
  throw err;
}

/**
 * Production read store: MongoDB (or anything speaking its protocol, such as FerretDB)
 * through the official driver. Documents keep their string `_id`; collections are looked
 * up by name on every call, so a handle stays valid across `renameCollection`.
 */
export class MongoReadStore extends ReadStore {
  private constructor(
    private readonly client: MongoClient,
    readonly db: Db,
  ) {
    super();
  }

  /** Connects (and checks the connection) to `url`, using database `dbName`. */
  static async connect(url: string, dbName: string): Promise<MongoReadStore> {
    // Fail within 10 s at start when the server does not answer (unless the URL says otherwise).
    const timeout = /[?&]serverSelectionTimeoutMS=/i.test(url) ? {} : { serverSelectionTimeoutMS: 10_000 };
    const client = new MongoClient(url, { ...timeout, ignoreUndefined: true });
    await client.connect();
    const store = new MongoReadStore(client, client.db(dbName));
    await store.ping();
    return store;
  }

  override collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MongoCollectionAdapter(this.db, name) as unknown as Collection<T>;
  }

  /**
   * MongoDB switches atomically (`dropTarget`). FerretDB v1 does not implement `dropTarget`
   * (NotImplemented): there the target is dropped first, then the rename follows, so for a
   * moment readers see the collection missing (empty). See docs/operations.md.
   */
  override async renameCollection(from: string, to: string): Promise<void> {
    try {
      await this.db.renameCollection(from, to, { dropTarget: true });
    } catch (err) {
      if (!(err instanceof MongoServerError)) throw err;
      // Renaming a collection that was never written (an empty rebuild) empties the target.
      if (err.code === NAMESPACE_NOT_FOUND) {
        await this.db.collection(to).drop().catch(ignoreMissing);
        return;
      }
      if (err.code !== NOT_IMPLEMENTED) throw err;
      const exists = (await this.db.listCollections({ name: from }, { nameOnly: true }).toArray()).length > 0;
      await this.db.collection(to).drop().catch(ignoreMissing);
      if (exists) await this.db.renameCollection(from, to);
    }
  }

  override async listCollections(): Promise<string[]> {
    const infos = await this.db.listCollections({}, { nameOnly: true }).toArray();
    return infos.map((c) => c.name).filter((n) => !n.startsWith('system.'));
  }

  override async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  override async close(): Promise<void> {
    await this.client.close();
  }
}

function ignoreMissing(err: unknown): void {
  if (err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND) return;
  throw err;
}

class MongoCollectionAdapter implements Collection<Doc> {
  constructor(
    private readonly db: Db,
    readonly name: string,
  ) {}

  private get c(): MongoCollection<Doc> {
    return this.db.collection<Doc>(this.name);
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    return (await this.c.findOne(filter)) as Doc | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    let cursor = this.c.find(filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()) as Doc[];
  }

  async count(filter: Filter): Promise<number> {
    return this.c.countDocuments(filter);
  }

  async insertOne(doc: Doc): Promise<void> {
    try {
      await this.c.insertOne({ ...doc });
    } catch (err) {
      mapError(this.name, err);
    }
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    try {
      const r = await this.c.replaceOne(filter, doc, { upsert: options.upsert ?? false });
      return { matched: r.matchedCount, upserted: r.upsertedCount > 0 };
    } catch (err) {
      mapError(this.name, err);
    }
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    try {
      const r = await this.c.updateOne(filter, update, { upsert: options.upsert ?? false });
      return { matched: r.matchedCount, upserted: r.upsertedCount > 0 };
    } catch (err) {
      mapError(this.name, err);
    }
  }

  async updateMany(filter: Filter, update: Update) {
    try {
      const r = await this.c.updateMany(filter, update);
      return { matched: r.matchedCount };
    } catch (err) {
      mapError(this.name, err);
    }
  }

  async deleteOne(filter: Filter) {
    const r = await this.c.deleteOne(filter);
    return { deleted: r.deletedCount };
  }

  async deleteMany(filter: Filter) {
    const r = await this.c.deleteMany(filter);
    return { deleted: r.deletedCount };
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    if (spec.search) return; // substring searches scan the documents the other conditions select
    try {
      await this.c.createIndex(spec.keys, { unique: spec.unique ?? false, ...(spec.name ? { name: spec.name } : {}) });
    } catch (err) {
      mapError(this.name, err);
    }
  }

  async drop(): Promise<void> {
    await this.c.drop().catch(ignoreMissing);
  }
}

/** Reactor checkpoints in the read store's database (collection `reactor_checkpoints`). */
export class MongoCheckpointStore extends CheckpointStore {
  private readonly c: MongoCollection<{ _id: string; position: string }>;

  constructor(db: Db, collection = 'reactor_checkpoints') {
    super();
    this.c = db.collection(collection);
  }

  override async load(name: string): Promise<bigint | undefined> {
    const doc = await this.c.findOne({ _id: name });
    return doc ? BigInt(doc.position) : undefined;
  }

  override async store(name: string, position: bigint): Promise<void> {
    await this.c.updateOne({ _id: name }, { $set: { position: position.toString() } }, { upsert: true });
  }
}
