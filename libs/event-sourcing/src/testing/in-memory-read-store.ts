import { find } from 'mingo';
import { applyUpdateFast, cloneDocument, stripOnInsert, upsertSeed, withOnInsert } from '../read-store/documents';
import { DuplicateKeyError, ReadStore, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Update } from '../read-store/read-store.port';
import { filterMatcher } from '../read-store/simple-filter';

/** The documents of one collection (in insertion order, as the embedded store's rows) and its unique indexes. */
interface CollectionData {
  readonly docs: Map<string, Doc>;
  readonly uniques: string[][];
}

/**
 * The read store port in memory, for unit tests of handlers, queries and projections: no
 * file, no server. It follows the embedded SQLite store (read-store.contract.ts proves it):
 * Mongo filters and updates by mingo's rules, documents stored as JSON (copies in and out),
 * unique indexes in which a missing field counts as null, collection handles resolved by name
 * at each call (so a handle stays valid across a rename). It has no transactions and no
 * change stamps: the subscription engine runs on it as it runs on MongoDB.
 */
export class InMemoryReadStore extends ReadStore {
  private readonly collections = new Map<string, CollectionData>();
  private closed = false;

  override collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new InMemoryCollection(this, name) as unknown as Collection<T>;
  }

  override async renameCollection(from: string, to: string): Promise<void> {
    this.checkOpen();
    const source = this.collections.get(from);
    this.collections.delete(from);
    this.collections.delete(to);
    if (source) this.collections.set(to, source);
  }

  override async listCollections(): Promise<string[]> {
    this.checkOpen();
    return [...this.collections.keys()];
  }

  override async ping(): Promise<void> {
    this.checkOpen();
  }

  override async close(): Promise<void> {
    this.closed = true;
  }

  /** The collection's data; with `create`, made on first use (a write or an index). */
  data(name: string, create: true): CollectionData;
  data(name: string, create?: false): CollectionData | undefined;
  data(name: string, create = false): CollectionData | undefined {
    this.checkOpen();
    let c = this.collections.get(name);
    if (!c && create) {
      c = { docs: new Map(), uniques: [] };
      this.collections.set(name, c);
    }
    return c;
  }

  drop(name: string): void {
    this.checkOpen();
    this.collections.delete(name);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the read store is closed');
  }
}

/** A document as stored: its JSON form read back (what the embedded store keeps), so later changes of the caller's object do not reach it. */
const stored = (doc: Doc): Doc => JSON.parse(JSON.stringify(doc)) as Doc;

/** The value of a unique index's field: a missing field counts as null, objects and arrays by their JSON. */
function keyOf(doc: Doc, fields: readonly string[]): string {
  return JSON.stringify(fields.map((f) => f.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc) ?? null));
}

class InMemoryCollection implements Collection<Doc> {
  constructor(
    private readonly store: InMemoryReadStore,
    readonly name: string,
  ) {}

  async findOne(filter: Filter): Promise<Doc | null> {
    const d = this.first(filter);
    return d ? cloneDocument(d) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    const docs = this.store.data(this.name)?.docs;
    if (!docs) return [];
    const match = filterMatcher(filter);
    let cursor = find([...docs.values()].filter(match), {});
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (cursor.all() as Doc[]).map(cloneDocument);
  }

  async count(filter: Filter): Promise<number> {
    return this.matching(filter).length;
  }

  async insertOne(doc: Doc): Promise<void> {
    this.insert(doc);
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    const existing = this.first(filter);
    if (existing) {
      this.put({ ...doc, _id: existing._id });
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    this.insert(doc);
    return { matched: 0, upserted: true };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    const existing = this.first(filter);
    if (existing) {
      this.put(this.updated(existing, update));
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    const seed = upsertSeed(filter);
    if (typeof seed._id !== 'string') throw new Error(`upsert into ${this.name} needs an _id equality in its filter`);
    applyUpdateFast(seed as Doc, withOnInsert(update));
    this.insert(seed as Doc);
    return { matched: 0, upserted: true };
  }

  /** As in MongoDB, not atomic: a document that fails (a duplicate key) stops the run, the ones before stay updated. */
  async updateMany(filter: Filter, update: Update) {
    const docs = this.matching(filter);
    for (const d of docs) this.put(this.updated(d, update));
    return { matched: docs.length };
  }

  async deleteOne(filter: Filter) {
    const d = this.first(filter);
    if (!d) return { deleted: 0 };
    this.store.data(this.name)!.docs.delete(d._id);
    return { deleted: 1 };
  }

  async deleteMany(filter: Filter) {
    const docs = this.matching(filter);
    for (const d of docs) this.store.data(this.name)!.docs.delete(d._id);
    return { deleted: docs.length };
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    const data = this.store.data(this.name, true);
    if (!spec.unique) return; // other indexes only make the stores with them faster
    const fields = Object.keys(spec.keys);
    if (data.uniques.some((u) => u.join() === fields.join())) return;
    const seen = new Set<string>();
    for (const d of data.docs.values()) {
      const key = keyOf(d, fields);
      if (seen.has(key)) throw new DuplicateKeyError(this.name, key);
      seen.add(key);
    }
    data.uniques.push(fields);
  }

  async drop(): Promise<void> {
    this.store.drop(this.name);
  }

  private matching(filter: Filter): Doc[] {
    const docs = this.store.data(this.name)?.docs;
    if (!docs) return [];
    const match = filterMatcher(filter);
    return [...docs.values()].filter(match);
  }

  private first(filter: Filter): Doc | undefined {
    const docs = this.store.data(this.name)?.docs;
    if (!docs) return undefined;
    const id = filter._id;
    const candidates = typeof id === 'string' ? [docs.get(id)].filter((d) => d !== undefined) : docs.values();
    const match = filterMatcher(filter);
    for (const d of candidates) if (match(d)) return d;
    return undefined;
  }

  private updated(doc: Doc, update: Update): Doc {
    const next = cloneDocument(doc);
    applyUpdateFast(next, stripOnInsert(update));
    return { ...next, _id: doc._id };
  }

  private insert(doc: Doc): void {
    if (typeof doc._id !== 'string') throw new Error(`a document of ${this.name} needs a string _id`);
    if (this.store.data(this.name)?.docs.has(doc._id)) throw new DuplicateKeyError(this.name, doc._id);
    this.put(doc);
  }

  /** Stores `doc` (new, or replacing the document of its `_id`) unless it takes a unique key of another document. */
  private put(doc: Doc): void {
    const next = stored(doc);
    const data = this.store.data(this.name, true);
    for (const fields of data.uniques) {
      const key = keyOf(next, fields);
      for (const other of data.docs.values()) {
        if (other._id !== next._id && keyOf(other, fields) === key) throw new DuplicateKeyError(this.name, key);
      }
    }
    data.docs.set(next._id, next);
  }
}
