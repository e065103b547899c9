import { find as mingoFind } from 'mingo';
import { DuplicateKeyError, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Update } from '@gensvc/event-sourcing';
import { filterMatcher } from '@gensvc/event-sourcing';
import { applyUpdateFast, cloneDocument, stripOnInsert, upsertSeed, withOnInsert } from '@gensvc/event-sourcing';
import { idOf, indexedBy, isPlain, orderOf, searchWhere, whereOf } from './sqlite-filter-compiler';
import type { SqliteReadStore } from './sqlite-read-store';
import type { CollectionMeta } from './sqlite-tables';
import type { Pending, PendingCollection } from './write-behind-cache';

interface Row {
  rowid: number;
  id: string;
  body: string;
}

/** Rows read in order to tell whether a search finds its page without the substring index. */
const SEARCH_PROBE = 500;
/** Rows named by a substring search from which a sorted query reads an index in order instead of the rows. */
const SEARCH_MANY = 2_000;

/** The `limit` rows after the first `skip` that `match` accepts (fewer when `rows` runs out). */
function pageOf(rows: Iterable<Row>, match: (d: Doc) => boolean, skip: number, limit: number): Row[] {
  const out: Row[] = [];
  let skipped = 0;
  for (const r of rows) {
    if (!match(JSON.parse(r.body) as Doc)) continue;
    if (skipped < skip) {
      skipped++;
      continue;
    }
    out.push(r);
    if (out.length === limit) break;
  }
  return out;
}

const isCount = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n >= 0;

/**
 * A collection of the embedded read store, resolved by name at each call (so a handle stays
 * valid across a rename). Reads run the filter compiler's clause, in the sort's order when SQL
 * can give it, and check rows with the matcher where the clause is a superset; inside the
 * store's running transaction, operations on one document by `_id` work on the write-behind
 * cache; every other operation first writes the collection's held documents out.
 */
export class SqliteCollection implements Collection<Doc> {
  constructor(
    private readonly store: SqliteReadStore,
    readonly name: string,
  ) {}

  async findOne(filter: Filter): Promise<Doc | null> {
    const hit = this.pendingFor(filter);
    if (hit) return hit.matches ? cloneDocument(hit.d.doc!) : null;
    const meta = this.store.meta(this.name);
    if (!meta) return null;
    return this.select(meta, filter, { limit: 1 })[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    this.store.cache.flush(this.name);
    const meta = this.store.meta(this.name);
    return meta ? this.select(meta, filter, options) : [];
  }

  async count(filter: Filter): Promise<number> {
    this.store.cache.flush(this.name);
    const meta = this.store.meta(this.name);
    if (!meta) return 0;
    const where = whereOf(meta, filter);
    if (where.exact) return (this.store.stmt(`SELECT count(*) AS n FROM ${meta.tbl} WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
    const match = filterMatcher(filter);
    let n = 0;
    for (const r of this.store.stmt(`SELECT body FROM ${meta.tbl} WHERE ${where.sql}`).iterate(...where.params) as Iterable<{ body: string }>) {
      if (match(JSON.parse(r.body) as Doc)) n++;
    }
    return n;
  }

  async insertOne(doc: Doc): Promise<void> {
    if (typeof doc._id !== 'string') throw new Error(`a document of ${this.name} needs a string _id`);
    const p = this.store.cache.pendingOf(this.name);
    if (p) return this.insertPending(p, doc);
    await this.store.write(() => this.insert(this.store.ensure(this.name), doc));
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    const hit = this.pendingFor(filter);
    if (hit && (hit.matches || !options.upsert || typeof doc._id === 'string')) {
      if (hit.matches) {
        this.store.cache.setPending(this.name, hit.d, { ...doc, _id: hit.d.doc!._id });
        return { matched: 1, upserted: false };
      }
      if (!options.upsert) return { matched: 0, upserted: false };
      this.insertPending(hit.p, doc);
      return { matched: 0, upserted: true };
    }
    this.store.cache.flush(this.name);
    return this.store.write(() => {
      const meta = this.store.meta(this.name);
      const row = meta && this.rows(meta, filter, { limit: 1 })[0];
      if (meta && row) {
        this.replace(meta, row, { ...doc, _id: row.id });
        return { matched: 1, upserted: false };
      }
      if (!options.upsert) return { matched: 0, upserted: false };
      this.insert(this.store.ensure(this.name), doc);
      return { matched: 0, upserted: true };
    });
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    const hit = this.pendingFor(filter);
    if (hit) {
      if (hit.matches) {
        const next = cloneDocument(hit.d.doc!);
        applyUpdateFast(next, stripOnInsert(update));
        this.store.cache.setPending(this.name, hit.d, { ...next, _id: hit.d.doc!._id });
        return { matched: 1, upserted: false };
      }
      if (!options.upsert) return { matched: 0, upserted: false };
      const seed = upsertSeed(filter);
      applyUpdateFast(seed as Doc, withOnInsert(update));
      if (typeof seed._id !== 'string') throw new Error(`upsert into ${this.name} needs an _id equality in its filter`);
      this.insertPending(hit.p, seed as Doc);
      return { matched: 0, upserted: true };
    }
    this.store.cache.flush(this.name);
    return this.store.write(() => {
      const meta = this.store.meta(this.name);
      const row = meta && this.rows(meta, filter, { limit: 1 })[0];
      if (meta && row) {
        const next = JSON.parse(row.body) as Doc;
        applyUpdateFast(next, stripOnInsert(update));
        this.replace(meta, row, { ...next, _id: row.id });
        return { matched: 1, upserted: false };
      }
      if (!options.upsert) return { matched: 0, upserted: false };
      const seed = upsertSeed(filter);
      if (typeof seed._id !== 'string') throw new Error(`upsert into ${this.name} needs an _id equality in its filter`);
      applyUpdateFast(seed as Doc, withOnInsert(update));
      this.insert(this.store.ensure(this.name), seed as Doc);
      return { matched: 0, upserted: true };
    });
  }

  /** As in MongoDB, not atomic: a document that fails (a duplicate key) stops the run, the ones before stay updated. */
  async updateMany(filter: Filter, update: Update) {
    this.store.cache.flush(this.name);
    const { matched, failure } = await this.store.write(() => {
      const meta = this.store.meta(this.name);
      if (!meta) return { matched: 0 };
      const rows = this.rows(meta, filter, {});
      for (const row of rows) {
        const next = JSON.parse(row.body) as Doc;
        applyUpdateFast(next, stripOnInsert(update));
        try {
          this.replace(meta, row, { ...next, _id: row.id });
        } catch (err) {
          return { matched: rows.length, failure: err };
        }
      }
      return { matched: rows.length };
    });
    if (failure) throw failure;
    return { matched };
  }

  async deleteOne(filter: Filter) {
    const hit = this.pendingFor(filter);
    if (hit) {
      if (!hit.matches) return { deleted: 0 };
      this.store.cache.setPending(this.name, hit.d, null);
      return { deleted: 1 };
    }
    this.store.cache.flush(this.name);
    return this.store.write(() => {
      const meta = this.store.meta(this.name);
      const row = meta && this.rows(meta, filter, { limit: 1 })[0];
      if (!meta || !row) return { deleted: 0 };
      this.remove(meta, row);
      return { deleted: 1 };
    });
  }

  async deleteMany(filter: Filter) {
    this.store.cache.flush(this.name);
    return this.store.write(() => {
      const meta = this.store.meta(this.name);
      if (!meta) return { deleted: 0 };
      const rows = this.rows(meta, filter, {});
      for (const row of rows) this.remove(meta, row);
      return { deleted: rows.length };
    });
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    await this.store.write(() => {
      this.store.cache.flush(this.name);
      const meta = this.store.ensure(this.name);
      if (spec.search) this.store.tables.createSearch(meta, Object.keys(spec.keys));
      else this.store.tables.createIndex(meta, spec);
    });
  }

  async drop(): Promise<void> {
    await this.store.write(() => {
      this.store.cache.flush(this.name);
      const meta = this.store.meta(this.name);
      if (meta) this.store.dropCollection(meta);
    });
  }

  /**
   * Inside the running transaction, for a filter that names one document by `_id`: that
   * document as the transaction sees it, and whether it matches the whole filter. Otherwise
   * undefined, after writing out the collection's pending documents (the caller then works
   * on the rows).
   */
  private pendingFor(filter: Filter): { p: PendingCollection; d: Pending; matches: boolean } | undefined {
    const id = idOf(filter);
    const p = id === undefined ? undefined : this.store.cache.pendingOf(this.name);
    if (!p) {
      this.store.cache.flush(this.name);
      return undefined;
    }
    const d = this.store.cache.pendingDoc(p, id!);
    return { p, d, matches: d.doc !== null && (Object.keys(filter).length === 1 || filterMatcher(filter)(d.doc)) };
  }

  /** Inserts a document as pending (DuplicateKeyError when its `_id` is taken). */
  private insertPending(p: PendingCollection, doc: Doc): void {
    const d = this.store.cache.pendingDoc(p, doc._id);
    if (d.doc !== null) throw new DuplicateKeyError(this.name, doc._id);
    p.meta ??= this.store.ensure(this.name);
    this.store.cache.setPending(this.name, d, doc, true);
  }

  /** How many rows the filter's substring search names, counting to `SEARCH_MANY` at most. */
  private searchHits(meta: CollectionMeta, filter: Filter): number {
    const branches = isPlain(filter) ? filter.$or : undefined;
    const s = meta.search && Array.isArray(branches) ? searchWhere(meta, branches, 'index') : null;
    if (!s || !meta.search || !s.sql.includes(' MATCH ?')) return 0;
    const fts = meta.search.fts;
    return (this.store.stmt(`SELECT count(*) AS n FROM (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? LIMIT ${SEARCH_MANY})`).get(...s.params) as { n: number }).n;
  }

  /** The matching rows, in the sort's order (insertion order without one), paged. */
  private rows(meta: CollectionMeta, filter: Filter, options: FindOptions): Row[] {
    const id = idOf(filter);
    if (id !== undefined) {
      // One document at most: read it by its key.
      const row = this.store.stmt(`SELECT rowid, id, body FROM ${meta.tbl} WHERE id = ?`).get(id) as Row | undefined;
      const skip = isCount(options.skip) ? options.skip : 0;
      return row && skip === 0 && (Object.keys(filter).length === 1 || filterMatcher(filter)(JSON.parse(row.body) as Doc)) ? [row] : [];
    }
    let where = whereOf(meta, filter);
    const order = orderOf(meta, options.sort);
    const skip = isCount(options.skip) ? options.skip : 0;
    const limit = isCount(options.limit) && options.limit > 0 ? options.limit : Infinity;
    if (where.sql.includes(' MATCH ?') && order !== null && limit !== Infinity) {
      // A common literal names many rows through the substring index (slow to collect and
      // sort), while reading in order with LIKE finds the page among the first rows. Probe the
      // first rows in order: when they hold the page, read that way.
      const base = whereOf(meta, filter, 'base');
      const like = whereOf(meta, filter, 'like');
      const probe = (
        this.store
          .stmt(
            `SELECT count(*) AS n FROM (SELECT rowid, id, body FROM ${meta.tbl}${indexedBy(meta, filter, options.sort)} WHERE ${base.sql} ORDER BY ${order} LIMIT ${SEARCH_PROBE}) WHERE ${like.sql}`,
          )
          .get(...base.params, ...like.params) as { n: number }
      ).n;
      if (probe >= skip + limit) where = like;
    }
    // A search narrowed by the substring index reads the rows it names (by rowid) and sorts
    // them; when it names many (each costs a read and a JSON parse), the sorted query reads an
    // index in order instead, tests each entry against the names (no row read) and stops at
    // the page.
    const search = where.sql.includes(' MATCH ?');
    const hint = search && (order === null || this.searchHits(meta, filter) < SEARCH_MANY) ? ' NOT INDEXED' : indexedBy(meta, filter, options.sort);
    const sql = `SELECT rowid, id, body FROM ${meta.tbl}${hint} WHERE ${where.sql}`;
    if (order !== null && where.exact) {
      return this.store.stmt(`${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...where.params, limit === Infinity ? -1 : limit, skip) as Row[];
    }
    const match = filterMatcher(filter);
    if (order !== null) return pageOf(this.store.stmt(`${sql} ORDER BY ${order}`).iterate(...where.params) as Iterable<Row>, match, skip, limit);
    // A sort SQL cannot give: every match, ordered by mingo (stable over insertion order).
    const byId = new Map<string, Row>();
    const docs: Doc[] = [];
    for (const r of this.store.stmt(`${sql} ORDER BY rowid`).iterate(...where.params) as Iterable<Row>) {
      const d = JSON.parse(r.body) as Doc;
      if (!match(d)) continue;
      byId.set(r.id, r);
      docs.push(d);
    }
    const sorted = mingoFind(docs, {}).sort(options.sort!).all() as Doc[];
    return sorted.slice(skip, limit === Infinity ? undefined : skip + limit).map((d) => byId.get(d._id)!);
  }

  private select(meta: CollectionMeta, filter: Filter, options: FindOptions): Doc[] {
    return this.rows(meta, filter, options).map((r) => JSON.parse(r.body) as Doc);
  }

  private insert(meta: CollectionMeta, doc: Doc): void {
    this.store.tables.insertRow(meta, doc);
    this.store.changed(this.name);
  }

  private replace(meta: CollectionMeta, row: Row, next: Doc): void {
    this.store.tables.updateRow(meta, row.rowid, next, () => JSON.parse(row.body) as Doc);
    this.store.changed(this.name);
  }

  private remove(meta: CollectionMeta, row: Row): void {
    this.store.tables.deleteRow(meta, row.rowid);
    this.store.changed(this.name);
  }
}
