import { Query, find, update as applyUpdate } from 'mingo';
import { DuplicateKeyError, ReadStore, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Update } from './read-store.port';

const clone = <T>(v: T): T => structuredClone(v);

/** The documents and unique indexes of one collection. */
interface CollectionData {
  readonly docs: Map<string, Doc>;
  readonly uniqueIndexes: IndexSpec[];
}

/**
 * Embedded read store: Mongo semantics (through mingo) over in-memory collections. It is not
 * persisted: read models are projections, rebuilt from the event store when the process
 * starts (see docs/architecture.md). Documents handed out are copies. Collection handles
 * resolve their name on every call, as with MongoDB, so they stay valid across
 * `renameCollection`; a collection exists once something was written to it.
 */
export class MemoryReadStore extends ReadStore {
  private readonly collections = new Map<string, CollectionData>();

  override collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MemoryCollection(name, (create) => {
      let c = this.collections.get(name);
      if (!c && create) {
        c = { docs: new Map(), uniqueIndexes: [] };
        this.collections.set(name, c);
      }
      return c;
    }, () => this.collections.delete(name)) as unknown as Collection<T>;
  }

  override async renameCollection(from: string, to: string): Promise<void> {
    const c = this.collections.get(from);
    this.collections.delete(from);
    this.collections.delete(to);
    if (c) this.collections.set(to, c);
  }

  override async listCollections(): Promise<string[]> {
    return [...this.collections.keys()];
  }

  override async ping(): Promise<void> {}
  override async close(): Promise<void> {}
}

const EMPTY: CollectionData = { docs: new Map(), uniqueIndexes: [] };

class MemoryCollection implements Collection<Doc> {
  constructor(
    readonly name: string,
    private readonly resolve: (create: boolean) => CollectionData | undefined,
    private readonly remove: () => void,
  ) {}

  /** The collection's data for reading (empty when it does not exist). */
  private get reading(): CollectionData {
    return this.resolve(false) ?? EMPTY;
  }

  /** The collection's data for writing (created when missing). */
  private get writing(): CollectionData {
    return this.resolve(true)!;
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    const d = this.first(this.reading, filter);
    return d ? clone(d) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    let cursor = find([...candidates(this.reading, filter)], filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (cursor.all() as Doc[]).map(clone);
  }

  async count(filter: Filter): Promise<number> {
    const q = new Query(filter);
    let n = 0;
    for (const d of candidates(this.reading, filter)) if (q.test(d)) n++;
    return n;
  }

  async insertOne(doc: Doc): Promise<void> {
    const data = this.writing;
    if (data.docs.has(doc._id)) throw new DuplicateKeyError(this.name, doc._id);
    const copy = clone(doc);
    this.checkUnique(data, copy);
    data.docs.set(copy._id, copy);
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    const data = this.reading;
    const existing = this.first(data, filter);
    if (existing) {
      const copy = clone({ ...doc, _id: existing._id });
      this.checkUnique(data, copy, existing._id);
      data.docs.set(existing._id, copy);
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    const data = this.reading;
    const existing = this.first(data, filter);
    if (existing) {
      const next = clone(existing);
      applyUpdate(next, stripOnInsert(update) as never);
      this.checkUnique(data, next, existing._id);
      data.docs.set(existing._id, next);
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    const seed = equalities(filter);
    if (typeof seed._id !== 'string') throw new Error(`upsert into ${this.name} needs an _id equality in its filter`);
    const doc = seed as Doc;
    applyUpdate(doc, withOnInsert(update) as never);
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateMany(filter: Filter, update: Update) {
    const data = this.reading;
    const q = new Query(filter);
    let matched = 0;
    for (const d of [...candidates(data, filter)]) {
      if (!q.test(d)) continue;
      const next = clone(d);
      applyUpdate(next, stripOnInsert(update) as never);
      this.checkUnique(data, next, d._id);
      data.docs.set(d._id, next);
      matched++;
    }
    return { matched };
  }

  async deleteOne(filter: Filter) {
    const data = this.reading;
    const d = this.first(data, filter);
    if (!d) return { deleted: 0 };
    data.docs.delete(d._id);
    return { deleted: 1 };
  }

  async deleteMany(filter: Filter) {
    const data = this.reading;
    const q = new Query(filter);
    let deleted = 0;
    for (const d of [...candidates(data, filter)]) {
      if (q.test(d)) {
        data.docs.delete(d._id);
        deleted++;
      }
    }
    return { deleted };
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    // Ordering indexes are a no-op in memory; unique indexes are enforced.
    const data = this.writing;
    if (!spec.unique || data.uniqueIndexes.some((i) => JSON.stringify(i.keys) === JSON.stringify(spec.keys))) return;
    for (const d of data.docs.values()) this.checkUnique({ docs: data.docs, uniqueIndexes: [spec] }, d, d._id);
    data.uniqueIndexes.push(spec);
  }

  async drop(): Promise<void> {
    this.remove();
  }

  private first(data: CollectionData, filter: Filter): Doc | undefined {
    const q = new Query(filter);
    for (const d of candidates(data, filter)) if (q.test(d)) return d;
    return undefined;
  }

  private checkUnique(data: CollectionData, doc: Doc, selfId?: string): void {
    for (const idx of data.uniqueIndexes) {
      const fields = Object.keys(idx.keys);
      const key = fields.map((f) => JSON.stringify(getPath(doc, f)) ?? 'null').join('|');
      for (const other of data.docs.values()) {
        if (other._id === selfId || other._id === doc._id) continue;
        if (fields.map((f) => JSON.stringify(getPath(other, f)) ?? 'null').join('|') === key) {
          throw new DuplicateKeyError(this.name, `${fields.join(',')}=${key}`);
        }
      }
    }
  }
}

/** Documents that may match: a direct lookup when the filter pins `_id`. */
function candidates(data: CollectionData, filter: Filter): Iterable<Doc> {
  const id = filter._id;
  if (typeof id === 'string') {
    const d = data.docs.get(id);
    return d ? [d] : [];
  }
  return data.docs.values();
}

function getPath(doc: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
}

/** Top-level equality conditions of a filter, the seed of an upserted document. */
function equalities(filter: Filter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith('$')) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const ops = Object.keys(v);
      if (ops.length === 1 && ops[0] === '$eq') out[k] = (v as { $eq: unknown }).$eq;
      continue;
    }
    out[k] = clone(v);
  }
  return out;
}

function stripOnInsert(update: Update): Update {
  const { $setOnInsert: _ignored, ...rest } = update as Update & { $setOnInsert?: unknown };
  return rest;
}

function withOnInsert(update: Update): Update {
  const { $setOnInsert, $set, ...rest } = update as Update & { $setOnInsert?: Record<string, unknown>; $set?: Record<string, unknown> };
  return $setOnInsert || $set ? { ...rest, $set: { ...($setOnInsert ?? {}), ...($set ?? {}) } } : rest;
}
