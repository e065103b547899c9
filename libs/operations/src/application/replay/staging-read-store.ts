import { find } from 'mingo';
import { DuplicateKeyError, ReadStore, applyUpdateFast, cloneDocument, filterMatcher, stripOnInsert, upsertSeed, withOnInsert, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Update } from '@gensvc/event-sourcing';

/**
 * Where a replay builds read models before they are copied into the real read store: an
 * in-memory store with the same (Mongo) semantics as the embedded read store, tuned for the
 * access pattern of projections. Common filters (`{_id}`, `{_id, _pos}`: what
 * `documentProjection` uses) are evaluated directly, as in the embedded read store
 * (`filterMatcher`), without compiling a mingo query; anything else goes through mingo.
 * Unique indexes are hash maps instead of scans. Documents handed in or out are copies.
 *
 * It holds the whole rebuilt read model in memory until the switch (docs/operations.md).
 */
export class StagingReadStore extends ReadStore {
  private readonly collections = new Map<string, StagingCollection>();

  override collection<T extends Doc = Doc>(name: string): Collection<T> & { all(): IterableIterator<T> } {
    let c = this.collections.get(name);
    if (!c) {
      c = new StagingCollection(name);
      this.collections.set(name, c);
    }
    return c as unknown as Collection<T> & { all(): IterableIterator<T> };
  }

  override async renameCollection(from: string, to: string): Promise<void> {
    const c = this.collections.get(from) ?? new StagingCollection(from);
    this.collections.delete(from);
    c.rename(to);
    this.collections.set(to, c);
  }

  override async listCollections(): Promise<string[]> {
    return [...this.collections.keys()];
  }

  override async ping(): Promise<void> {}
  override async close(): Promise<void> {
    this.collections.clear();
  }
}

/** Deep copy of JSON-like data (the embedded read store's copy). */
export const copy: <T>(v: T) => T = cloneDocument;

/** The key of a document in a unique index, computed as the embedded read store does. */
function indexKey(doc: Doc, fields: readonly string[]): string {
  return fields.map((f) => JSON.stringify(plainPath(doc, f))).join('|');
}

function plainPath(doc: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
}

class StagingCollection implements Collection<Doc> {
  private readonly docs = new Map<string, Doc>();
  private readonly uniques: { fields: string[]; owners: Map<string, string> }[] = [];

  constructor(private _name: string) {}

  get name(): string {
    return this._name;
  }

  rename(name: string): void {
    this._name = name;
  }

  /** The stored documents (not copies), in insertion order. */
  all(): IterableIterator<Doc> {
    return this.docs.values();
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    const d = this.first(filter);
    return d ? copy(d) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    let cursor = find([...this.candidates(filter)], filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (cursor.all() as Doc[]).map(copy);
  }

  async count(filter: Filter): Promise<number> {
    const m = filterMatcher(filter);
    let n = 0;
    for (const d of this.candidates(filter)) if (m(d)) n++;
    return n;
  }

  async insertOne(doc: Doc): Promise<void> {
    if (this.docs.has(doc._id)) throw new DuplicateKeyError(this._name, doc._id);
    this.store(copy(doc), undefined);
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    const existing = this.first(filter);
    if (existing) {
      this.store(copy({ ...doc, _id: existing._id }), existing);
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    const existing = this.first(filter);
    if (existing) {
      const next = copy(existing);
      applyUpdateFast(next, stripOnInsert(update));
      this.store(next, existing);
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    const seed = upsertSeed(filter);
    if (typeof seed._id !== 'string') throw new Error(`upsert into ${this._name} needs an _id equality in its filter`);
    const doc = seed as Doc;
    applyUpdateFast(doc, withOnInsert(update));
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateMany(filter: Filter, update: Update) {
    const m = filterMatcher(filter);
    let matched = 0;
    for (const d of [...this.candidates(filter)]) {
      if (!m(d)) continue;
      const next = copy(d);
      applyUpdateFast(next, stripOnInsert(update));
      this.store(next, d);
      matched++;
    }
    return { matched };
  }

  async deleteOne(filter: Filter) {
    const d = this.first(filter);
    if (!d) return { deleted: 0 };
    this.remove(d);
    return { deleted: 1 };
  }

  async deleteMany(filter: Filter) {
    const m = filterMatcher(filter);
    let deleted = 0;
    for (const d of [...this.candidates(filter)]) {
      if (m(d)) {
        this.remove(d);
        deleted++;
      }
    }
    return { deleted };
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    if (!spec.unique) return;
    const fields = Object.keys(spec.keys);
    if (this.uniques.some((u) => u.fields.join() === fields.join())) return;
    const owners = new Map<string, string>();
    for (const d of this.docs.values()) {
      const key = indexKey(d, fields);
      if (owners.has(key)) throw new DuplicateKeyError(this._name, `${fields.join(',')}=${key}`);
      owners.set(key, d._id);
    }
    this.uniques.push({ fields, owners });
  }

  async drop(): Promise<void> {
    this.docs.clear();
    this.uniques.length = 0;
  }

  /** Writes `next` (replacing `previous`, the stored version of the same id) after the unique checks. */
  private store(next: Doc, previous: Doc | undefined): void {
    const keys = this.uniques.map((u) => indexKey(next, u.fields));
    this.uniques.forEach((u, i) => {
      const owner = u.owners.get(keys[i]);
      if (owner !== undefined && owner !== next._id) throw new DuplicateKeyError(this._name, `${u.fields.join(',')}=${keys[i]}`);
    });
    if (previous) this.unindex(previous);
    this.uniques.forEach((u, i) => u.owners.set(keys[i], next._id));
    this.docs.set(next._id, next);
  }

  private remove(doc: Doc): void {
    this.unindex(doc);
    this.docs.delete(doc._id);
  }

  private unindex(doc: Doc): void {
    for (const u of this.uniques) {
      const key = indexKey(doc, u.fields);
      if (u.owners.get(key) === doc._id) u.owners.delete(key);
    }
  }

  private candidates(filter: Filter): Iterable<Doc> {
    const id = filter._id;
    if (typeof id === 'string') {
      const d = this.docs.get(id);
      return d ? [d] : [];
    }
    return this.docs.values();
  }

  private first(filter: Filter): Doc | undefined {
    const m = filterMatcher(filter);
    for (const d of this.candidates(filter)) if (m(d)) return d;
    return undefined;
  }
}
