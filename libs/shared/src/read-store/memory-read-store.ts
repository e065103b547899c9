import { find, update as applyUpdate } from 'mingo';
import { DuplicateKeyError, ReadStore, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Sort, type Update } from './read-store.port';
import { SecondaryIndex, chooseWindow, type Entry, type IndexWindow } from './memory-indexes';
import { filterMatcher } from './simple-filter';
import { cloneDocument as clone, stripOnInsert, upsertSeed, withOnInsert } from './documents';

/** A unique index: the owner (`_id`) of each key. */
interface UniqueIndex {
  readonly spec: IndexSpec;
  readonly fields: readonly string[];
  readonly owners: Map<string, string>;
}

/** The documents and indexes of one collection. */
interface CollectionData {
  /** By `_id`, in insertion order (the order of a full scan). */
  readonly docs: Map<string, Entry>;
  readonly uniqueIndexes: UniqueIndex[];
  readonly indexes: SecondaryIndex[];
  nextSeq: number;
}

const newData = (): CollectionData => ({ docs: new Map(), uniqueIndexes: [], indexes: [], nextSeq: 0 });

/**
 * Embedded read store: Mongo semantics (through mingo) over in-memory collections. It is not
 * persisted: read models are projections, rebuilt from the event store when the process
 * starts (see docs/architecture.md). Documents handed out are copies. Collection handles
 * resolve their name on every call, as with MongoDB, so they stay valid across
 * `renameCollection`; a collection exists once something was written to it.
 *
 * Fast paths, with the same results as mingo over the whole collection: `_id` lookups are
 * direct; common filters are evaluated without mingo (simple-filter.ts); the indexes declared
 * with createIndex are kept in order in memory (memory-indexes.ts), so a query that pins an
 * index's leading fields reads only that window, and one sorted as the index stops after
 * skip + limit matches. Unique indexes are hash maps.
 */
export class MemoryReadStore extends ReadStore {
  private readonly collections = new Map<string, CollectionData>();

  override collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new MemoryCollection(name, (create) => {
      let c = this.collections.get(name);
      if (!c && create) {
        c = newData();
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

const EMPTY: CollectionData = newData();

/** A boolean test of the filter; the fields an index window pins are not tested again. */
function matcher(filter: Filter, window?: IndexWindow | null): (doc: Doc) => boolean {
  return filterMatcher(filter, window ? new Set(window.index.fields.slice(0, window.pinned)) : undefined);
}

const bySeq = (a: Entry, b: Entry): number => a.seq - b.seq;

const isCount = (n: number | undefined): boolean => n === undefined || (Number.isInteger(n) && n >= 0);

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
    const e = first(this.reading, filter);
    return e ? clone(e.doc) : null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return select(this.reading, filter, options).map(clone);
  }

  async count(filter: Filter): Promise<number> {
    let n = 0;
    forMatches(this.reading, filter, () => n++);
    return n;
  }

  async insertOne(doc: Doc): Promise<void> {
    const data = this.writing;
    if (data.docs.has(doc._id)) throw new DuplicateKeyError(this.name, doc._id);
    this.insert(data, clone(doc));
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    const data = this.reading;
    const existing = first(data, filter);
    if (existing) {
      this.replace(data, existing, clone({ ...doc, _id: existing.id }));
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    const data = this.reading;
    const existing = first(data, filter);
    if (existing) {
      const next = clone(existing.doc);
      applyUpdate(next, stripOnInsert(update) as never);
      this.replace(data, existing, next);
      return { matched: 1, upserted: false };
    }
    if (!options.upsert) return { matched: 0, upserted: false };
    const seed = upsertSeed(filter);
    if (typeof seed._id !== 'string') throw new Error(`upsert into ${this.name} needs an _id equality in its filter`);
    const doc = seed as Doc;
    applyUpdate(doc, withOnInsert(update) as never);
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateMany(filter: Filter, update: Update) {
    const data = this.reading;
    let matched = 0;
    for (const e of matching(data, filter)) {
      const next = clone(e.doc);
      applyUpdate(next, stripOnInsert(update) as never);
      this.replace(data, e, next);
      matched++;
    }
    return { matched };
  }

  async deleteOne(filter: Filter) {
    const data = this.reading;
    const e = first(data, filter);
    if (!e) return { deleted: 0 };
    deleteEntry(data, e);
    return { deleted: 1 };
  }

  async deleteMany(filter: Filter) {
    const data = this.reading;
    const gone = matching(data, filter);
    for (const e of gone) deleteEntry(data, e);
    return { deleted: gone.length };
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    const data = this.writing;
    const keys = JSON.stringify(spec.keys);
    if (spec.unique && !data.uniqueIndexes.some((i) => JSON.stringify(i.spec.keys) === keys)) {
      const unique: UniqueIndex = { spec, fields: Object.keys(spec.keys), owners: new Map() };
      for (const e of data.docs.values()) {
        const key = uniqueKey(e.doc, unique.fields);
        if (unique.owners.has(key)) throw new DuplicateKeyError(this.name, `${unique.fields.join(',')}=${key}`);
        unique.owners.set(key, e.id);
      }
      data.uniqueIndexes.push(unique);
    }
    if (!data.indexes.some((i) => JSON.stringify(i.spec.keys) === keys)) {
      const index = new SecondaryIndex(spec, data.indexes.length);
      index.build(data.docs.values());
      data.indexes.push(index);
    }
  }

  async drop(): Promise<void> {
    this.remove();
  }

  private insert(data: CollectionData, doc: Doc): void {
    this.checkUnique(data, doc);
    const entry: Entry = { id: doc._id, doc, seq: data.nextSeq++, keys: [] };
    data.docs.set(entry.id, entry);
    for (const u of data.uniqueIndexes) u.owners.set(uniqueKey(doc, u.fields), entry.id);
    for (const index of data.indexes) index.add(entry);
  }

  private replace(data: CollectionData, entry: Entry, next: Doc): void {
    this.checkUnique(data, next, entry.id);
    for (const u of data.uniqueIndexes) {
      const before = uniqueKey(entry.doc, u.fields);
      if (u.owners.get(before) === entry.id) u.owners.delete(before);
      u.owners.set(uniqueKey(next, u.fields), entry.id);
    }
    const changed = data.indexes.filter((index) => index.changes(entry, next));
    for (const index of changed) index.remove(entry);
    entry.doc = next;
    for (const index of changed) index.add(entry);
  }

  private checkUnique(data: CollectionData, doc: Doc, selfId?: string): void {
    for (const u of data.uniqueIndexes) {
      const key = uniqueKey(doc, u.fields);
      const owner = u.owners.get(key);
      if (owner !== undefined && owner !== selfId && owner !== doc._id) throw new DuplicateKeyError(this.name, `${u.fields.join(',')}=${key}`);
    }
  }
}

function deleteEntry(data: CollectionData, e: Entry): void {
  data.docs.delete(e.id);
  for (const u of data.uniqueIndexes) {
    const key = uniqueKey(e.doc, u.fields);
    if (u.owners.get(key) === e.id) u.owners.delete(key);
  }
  for (const index of data.indexes) index.remove(e);
}

function uniqueKey(doc: Record<string, unknown>, fields: readonly string[]): string {
  return fields.map((f) => JSON.stringify(getPath(doc, f)) ?? 'null').join('|');
}

/** The entry pinned by an `_id` equality on a string, if the filter has one. */
function byId(data: CollectionData, filter: Filter): Entry | null | undefined {
  const id = filter._id;
  return typeof id === 'string' ? (data.docs.get(id) ?? null) : undefined;
}

/** Visits the matching entries (from an index window, or all), in no particular order. */
function forMatches(data: CollectionData, filter: Filter, visit: (e: Entry) => void): void {
  const pinned = byId(data, filter);
  if (pinned !== undefined) {
    if (pinned && matcher(filter)(pinned.doc)) visit(pinned);
    return;
  }
  const w = chooseWindow(data.indexes, filter, undefined, false);
  const match = matcher(filter, w);
  if (w) {
    w.index.scan(w.start, w.end, false, (e) => {
      if (match(e.doc)) visit(e);
      return true;
    });
    return;
  }
  for (const e of data.docs.values()) if (match(e.doc)) visit(e);
}

/** The matching entries in insertion order. */
function matching(data: CollectionData, filter: Filter): Entry[] {
  const out: Entry[] = [];
  forMatches(data, filter, (e) => out.push(e));
  return out.sort(bySeq);
}

/** The first matching entry in insertion order (what a full scan would find first). */
function first(data: CollectionData, filter: Filter): Entry | undefined {
  const pinned = byId(data, filter);
  if (pinned !== undefined) return pinned && matcher(filter)(pinned.doc) ? pinned : undefined;
  const w = chooseWindow(data.indexes, filter, undefined, false);
  const useWindow = w && w.size * 2 < data.docs.size;
  const match = matcher(filter, useWindow ? w : null);
  if (w && useWindow) {
    let best: Entry | undefined;
    w.index.scan(w.start, w.end, false, (e) => {
      if ((!best || e.seq < best.seq) && match(e.doc)) best = e;
      return true;
    });
    return best;
  }
  for (const e of data.docs.values()) if (match(e.doc)) return e;
  return undefined;
}

/** Mingo's sort (stable: ties keep the given order). */
function mingoSort(docs: Doc[], sort: Sort): Doc[] {
  return find(docs, {}).sort(sort).all() as Doc[];
}

/** The documents of find(): those of a full scan through mingo, sorted, skipped and limited. */
function select(data: CollectionData, filter: Filter, options: FindOptions): Doc[] {
  const { sort, skip, limit } = options;
  const hasSort = sort !== undefined && Object.keys(sort).length > 0;
  if ((sort !== undefined && !hasSort) || !isCount(skip) || !isCount(limit)) {
    // Unusual options: exactly what mingo makes of them.
    let cursor = find([...data.docs.values()].map((e) => e.doc), filter);
    if (sort) cursor = cursor.sort(sort);
    if (skip) cursor = cursor.skip(skip);
    if (limit) cursor = cursor.limit(limit);
    return cursor.all() as Doc[];
  }
  const from = skip ?? 0;
  const to = limit ? from + limit : Infinity;
  const page = (docs: Doc[]): Doc[] => (from === 0 && to >= docs.length ? docs : docs.slice(from, to));
  const pinned = byId(data, filter);
  if (pinned !== undefined) return page(pinned && matcher(filter)(pinned.doc) ? [pinned.doc] : []);
  const w = chooseWindow(data.indexes, filter, hasSort ? sort : undefined, hasSort);
  const match = matcher(filter, w);
  if (w && w.ordered > 0) return page(readInOrder(w, match, sort!, to));
  let found: Doc[];
  if (w) {
    const entries: Entry[] = [];
    w.index.scan(w.start, w.end, false, (e) => {
      if (match(e.doc)) entries.push(e);
      return true;
    });
    found = entries.sort(bySeq).map((e) => e.doc);
  } else {
    found = [];
    for (const e of data.docs.values()) {
      if (!match(e.doc)) continue;
      found.push(e.doc);
      if (!hasSort && found.length >= to) break;
    }
  }
  return page(hasSort ? mingoSort(found, sort!) : found);
}

/**
 * Reads an index window in the sort's order and stops once `needed` matches are certain.
 * Entries with equal values on the ordered fields form a run; a run's matches are ordered
 * by the whole sort, ties in insertion order, as mingo's stable sort does.
 */
function readInOrder(w: IndexWindow, match: (d: Doc) => boolean, sort: Sort, needed: number): Doc[] {
  const out: Doc[] = [];
  const sortedByIndex = Object.keys(sort).length <= w.pinned + w.ordered && sortFieldsCovered(w, sort);
  // Runs are single entries when the ordered fields include the unique _id.
  const singles = w.index.fields.slice(w.pinned, w.pinned + w.ordered).includes('_id');
  if (singles) {
    w.index.scan(w.start, w.end, w.reverse, (e) => {
      if (match(e.doc)) out.push(e.doc);
      return out.length < needed;
    });
    return out;
  }
  let run: Entry[] = [];
  let head: Entry | undefined;
  const flush = () => {
    if (run.length === 1) out.push(run[0].doc);
    else if (run.length > 1) {
      run.sort(bySeq);
      const docs = run.map((e) => e.doc);
      out.push(...(sortedByIndex ? docs : mingoSort(docs, sort)));
    }
    run = [];
  };
  w.index.scan(w.start, w.end, w.reverse, (e) => {
    if (head && !w.index.sameRun(head, e, w.pinned, w.ordered)) {
      flush();
      if (out.length >= needed) return false;
      head = e;
    } else if (!head) head = e;
    if (match(e.doc)) run.push(e);
    return true;
  });
  flush();
  return out;
}

/** Whether every sort field is a pinned or ordered field of the window (then a run is all ties). */
function sortFieldsCovered(w: IndexWindow, sort: Sort): boolean {
  const covered = new Set(w.index.fields.slice(0, w.pinned + w.ordered));
  return Object.keys(sort).every((f) => covered.has(f));
}

function getPath(doc: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);
}
