import { find as mingoFind } from 'mingo';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DuplicateKeyError, ReadStore, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Sort, type Update } from '@gensvc/event-sourcing';
import { filterMatcher } from '@gensvc/event-sourcing';
import { applyUpdateFast, cloneDocument, stripOnInsert, upsertSeed, withOnInsert } from '@gensvc/event-sourcing';
import { SqliteDatabase, isBusy, sqliteCode, type Statement } from '../sqlite/sqlite';

export interface SqliteReadStoreOptions {
  /** Page cache of the connection in MiB (the store's memory bound besides one query's rows). */
  readonly cacheMb?: number;
}

/** What the store knows of one collection (cached per process, refreshed when another connection commits). */
interface Meta {
  readonly name: string;
  /** Physical table of the documents; renames move the name, never the table. */
  readonly tbl: string;
  /** Paths that ever held an array: conditions on them (and below) are left to the matcher. */
  readonly arrays: Set<string>;
  /** Paths that ever held an object or a boolean: comparisons on them are not exact in SQL. */
  readonly odd: Set<string>;
  /** The substring search index, when declared. */
  search?: { readonly fts: string; readonly fields: string[] };
  /** The secondary indexes: SQL name, keys, and whether unique. */
  indexes: { readonly name: string; readonly keys: Record<string, 1 | -1>; readonly unique?: boolean }[];
}

/**
 * A document as the running write transaction sees it, not yet written (see `transaction`):
 * the stored row (if any) and the document the transaction made of it.
 */
interface Pending {
  /** Row id of the stored row; undefined when there is none. */
  rowid: number | undefined;
  /** The stored document; null when there is none. */
  stored: Doc | null;
  /** The document now; null when absent (deleted, or never there). */
  doc: Doc | null;
  dirty: boolean;
  /** When it was last inserted within the transaction (0: not): new rows get row ids in this order. */
  inserted: number;
}

/** The pending documents of one collection in the running transaction. */
interface PendingCollection {
  readonly name: string;
  meta: Meta | undefined;
  readonly docs: Map<string, Pending>;
}

interface Row {
  rowid: number;
  id: string;
  body: string;
}

/** A WHERE clause: `exact` when it selects exactly the filter's documents (no matcher needed). */
interface Where {
  readonly sql: string;
  readonly params: unknown[];
  readonly exact: boolean;
}

const ANY: Where = { sql: '1', params: [], exact: false };
const ALL: Where = { sql: '1', params: [], exact: true };

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;
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
const STATEMENT_CACHE = 500;
/** Documents a write transaction holds before writing them out (its memory bound). */
const PENDING_LIMIT = 20_000;

/**
 * Embedded read store: documents as JSON in SQLite (`DATA_DIR/read.db`, WAL), persisted with
 * their projections' checkpoints, so a start resumes where the projections stopped instead of
 * rebuilding. One table per collection (`id`, `body`), in a catalogue (`rs_collections`) that
 * maps names to tables, so `renameCollection` is one transaction that moves a name.
 *
 * Queries: a Mongo filter becomes a WHERE clause over `json_extract` expressions, the same ones
 * `createIndex` indexes, so SQLite's planner uses the indexes for equalities, ranges and the
 * sort. When the translation is exact (scalars on paths that never held arrays), SQL sorts and
 * pages alone; otherwise the clause is a superset and each row is checked by the same matcher
 * the other stores follow (mingo's rules), in the SQL order, stopping after skip + limit. A sort
 * SQL cannot order as Mongo would (paths with arrays, objects or booleans) is done by mingo.
 * A `search` index is an FTS5 trigram table: case-insensitive literal `$regex` searches of
 * three characters or more read the rows it names, unless the first 500 rows in the sort's
 * order already hold the page (a common literal): then the ordered scan filters with LIKE.
 *
 * Writes are single transactions (`BEGIN IMMEDIATE`: a read-modify-write such as a conditional
 * replace is atomic against other processes on the same file). `transaction(fn)` groups every
 * write `fn` makes into one; writes of other callers of this process wait meanwhile. Inside it,
 * the operations that name one document by `_id` (what projections do) work on parsed copies
 * held in memory and written out once, when `fn` ends (or when 20,000 are held, or before any
 * other operation on the collection): a document an event batch changes several times is
 * parsed and written once. Readers outside the transaction see the rows as they were.
 * Memory: the page cache (`cacheMb`), the rows of the query at hand, and a transaction's
 * pending documents (at most 20,000).
 */
export class SqliteReadStore extends ReadStore {
  private readonly metas = new Map<string, Meta>();
  private dataVersion = -1;
  /** `rs_catalogue.version` when the catalogue was read: bumped by triggers at each change of `rs_collections`. */
  private catalogueVersion = -1;
  private readonly statements = new Map<string, Statement<unknown[], unknown>>();
  private readonly batches = new AsyncLocalStorage<object>();
  private batchToken: object | undefined;
  private batchDone: Promise<void> = Promise.resolve();
  /** The running transaction's pending documents per collection (see `transaction`). */
  private readonly pending = new Map<string, PendingCollection>();
  private pendingCount = 0;
  private insertSeq = 0;
  /** The catalogue was read inside the running write transaction (no other writer can change it). */
  private refreshedInTxn = false;
  /** Change stamps (see `changeStamp`): a clock, when each collection last changed here, when anything may have changed. */
  private changeClock = 0;
  private readonly changedAt = new Map<string, number>();
  private anythingChangedAt = 0;

  private constructor(readonly db: SqliteDatabase) {
    super();
    db.exec(`CREATE TABLE IF NOT EXISTS rs_collections (
      name TEXT PRIMARY KEY, tbl TEXT NOT NULL UNIQUE,
      arrays TEXT NOT NULL DEFAULT '[]', odd TEXT NOT NULL DEFAULT '[]', search TEXT, indexes TEXT NOT NULL DEFAULT '[]')`);
    // Commits of other connections (the projection thread, other processes) change
    // `data_version` all the time; the catalogue itself seldom: a counter kept by triggers
    // says whether it must be read again.
    // Created once (an open of an existing file writes nothing, so it never waits for the
    // write lock another process may hold).
    const hasCatalogueVersion = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name = 'rs_collections_deleted'").get()!.n;
    if (!hasCatalogueVersion) {
      db.exec(`BEGIN IMMEDIATE;
        CREATE TABLE IF NOT EXISTS rs_catalogue (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
        INSERT OR IGNORE INTO rs_catalogue (id, version) VALUES (1, 0);
        CREATE TRIGGER IF NOT EXISTS rs_collections_inserted AFTER INSERT ON rs_collections BEGIN UPDATE rs_catalogue SET version = version + 1; END;
        CREATE TRIGGER IF NOT EXISTS rs_collections_updated AFTER UPDATE ON rs_collections BEGIN UPDATE rs_catalogue SET version = version + 1; END;
        CREATE TRIGGER IF NOT EXISTS rs_collections_deleted AFTER DELETE ON rs_collections BEGIN UPDATE rs_catalogue SET version = version + 1; END;
        COMMIT;`);
    }
  }

  /** Opens (creating) the store at `file` (`:memory:` for a private in-memory database). */
  static open(file: string, options: SqliteReadStoreOptions = {}): SqliteReadStore {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const db = new SqliteDatabase(file, {
      pragmas: [
        'journal_mode = WAL',
        // Read models are rebuilt from the events if ever lost: a power cut may drop the last
        // commits (the projections then apply those events again), a process crash loses nothing.
        'synchronous = NORMAL',
        `cache_size = -${Math.max(1, options.cacheMb ?? 64) * 1024}`,
        'temp_store = MEMORY',
      ],
    });
    return new SqliteReadStore(db);
  }

  override collection<T extends Doc = Doc>(name: string): Collection<T> {
    return new SqliteCollection(this, name) as unknown as Collection<T>;
  }

  override async renameCollection(from: string, to: string): Promise<void> {
    await this.write(() => {
      this.flushAll();
      const target = this.meta(to);
      if (target) this.dropMeta(target);
      const source = this.meta(from);
      if (source) {
        this.run('UPDATE rs_collections SET name = ? WHERE name = ?', to, from);
        this.metas.delete(from);
        this.metas.set(to, { ...source, name: to });
      }
      this.changed(from);
      this.changed(to);
    });
  }

  override async listCollections(): Promise<string[]> {
    this.refresh();
    return [...this.metas.keys()];
  }

  /**
   * Equal at two calls only if no document of `collections` changed in between: writes of
   * this process are counted per collection as they reach the connection (or a transaction's
   * pending documents); a commit of another connection (`data_version`) or a rollback counts
   * as a change of everything.
   */
  override changeStamp(collections: readonly string[]): number {
    this.refresh();
    let stamp = this.anythingChangedAt;
    for (const c of collections) stamp = Math.max(stamp, this.changedAt.get(c) ?? 0);
    return stamp;
  }

  /** Records that documents of `name` changed just now (called right after the change). */
  changed(name: string): void {
    this.changedAt.set(name, ++this.changeClock);
  }

  override async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  override async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  override async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.batchToken && this.batches.getStore() === this.batchToken) return fn();
    while (this.batchToken) await this.batchDone;
    const token = {};
    this.batchToken = token;
    let done!: () => void;
    this.batchDone = new Promise<void>((r) => (done = r));
    try {
      await this.begin();
      let result: T;
      try {
        this.refresh();
        result = await this.batches.run(token, fn);
        this.flushAll();
      } catch (err) {
        this.discardPending();
        this.db.rollback();
        this.forget();
        throw err;
      }
      this.db.commit();
      return result;
    } finally {
      this.discardPending();
      this.refreshedInTxn = false;
      this.batchToken = undefined;
      done();
    }
  }

  /** BEGIN IMMEDIATE without blocking the event loop while another process writes. */
  private async begin(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
      this.stmt('PRAGMA busy_timeout = 0').get(); // prepared once
      try {
        this.db.begin();
        return;
      } catch (err) {
        if (!isBusy(err) || Date.now() > deadline) throw err;
      } finally {
        this.stmt('PRAGMA busy_timeout = 5000').get();
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Runs `fn` as one write transaction (a savepoint inside a running one), after a running batch of another caller. */
  async write<T>(fn: () => T): Promise<T> {
    while (this.batchToken && this.batches.getStore() !== this.batchToken) await this.batchDone;
    return this.writeSync(fn);
  }

  private writeSync<T>(fn: () => T): T {
    // Inside a batch: no savepoint. Each write fails, if at all, at its first statement (a
    // constraint), which SQLite undoes alone; any later failure fails the batch.
    if (this.batchToken && this.db.inTransaction) return fn();
    const outer = !this.db.inTransaction;
    try {
      return this.db.transaction(() => {
        if (outer) this.refresh();
        return fn();
      });
    } catch (err) {
      this.forget();
      throw err;
    } finally {
      if (outer) this.refreshedInTxn = false;
    }
  }

  /** Whether the caller runs inside the running `transaction` (its writes may be held pending). */
  inBatch(): boolean {
    return this.batchToken !== undefined && this.db.inTransaction && this.batches.getStore() === this.batchToken;
  }

  /**
   * The pending documents of a collection, for an operation on one document by `_id` inside
   * the running transaction; undefined outside it, or when the collection has a unique index
   * (its violations must show at the operation that causes them).
   */
  pendingOf(name: string): PendingCollection | undefined {
    if (!this.inBatch()) return undefined;
    if (this.pendingCount >= PENDING_LIMIT) this.flushAll();
    let p = this.pending.get(name);
    if (p) return p;
    const meta = this.meta(name);
    if (meta?.indexes.some((i) => i.unique)) return undefined;
    p = { name, meta, docs: new Map() };
    this.pending.set(name, p);
    return p;
  }

  /** The document `id` as the running transaction sees it (loaded on first use). */
  pendingDoc(p: PendingCollection, id: string): Pending {
    let d = p.docs.get(id);
    if (d) return d;
    const row = p.meta ? (this.stmt(`SELECT rowid, body FROM ${p.meta.tbl} WHERE id = ?`).get(id) as { rowid: number; body: string } | undefined) : undefined;
    const stored = row ? (JSON.parse(row.body) as Doc) : null;
    d = { rowid: row?.rowid, stored, doc: stored, dirty: false, inserted: 0 };
    p.docs.set(id, d);
    this.pendingCount++;
    return d;
  }

  /**
   * Sets a pending document of collection `name` (null: deleted) and records the change;
   * `inserted`: it is a new row (new rows are written in insertion order).
   */
  setPending(name: string, d: Pending, doc: Doc | null, inserted = false): void {
    d.doc = doc;
    d.dirty = true;
    if (inserted) d.inserted = ++this.insertSeq;
    this.changed(name);
  }

  /** Writes out the pending documents of one collection (before another operation on it). */
  flush(name: string): void {
    if (!this.inBatch()) return;
    const p = this.pending.get(name);
    if (!p) return;
    this.pending.delete(name);
    this.pendingCount -= p.docs.size;
    this.writePending(p);
  }

  /** Writes out every pending document. */
  flushAll(): void {
    if (!this.db.inTransaction) return;
    const all = [...this.pending.values()];
    this.pending.clear();
    this.pendingCount = 0;
    for (const p of all) this.writePending(p);
  }

  private discardPending(): void {
    this.pending.clear();
    this.pendingCount = 0;
  }

  private writePending(p: PendingCollection): void {
    const name = p.name;
    const inserts: Pending[] = [];
    for (const d of p.docs.values()) {
      if (!d.dirty) continue;
      const meta = p.meta!;
      if (d.doc === null || d.inserted) {
        if (d.rowid !== undefined) {
          // deleted, or deleted and inserted again (a new row, as a delete and an insert make)
          this.run(`DELETE FROM ${meta.tbl} WHERE rowid = ?`, d.rowid);
          if (meta.search) this.run(`DELETE FROM ${meta.search.fts} WHERE rowid = ?`, d.rowid);
          d.rowid = undefined;
          d.stored = null;
        }
        if (d.doc !== null) inserts.push(d);
        continue;
      }
      try {
        this.run(`UPDATE ${meta.tbl} SET body = ? WHERE rowid = ?`, JSON.stringify(d.doc), d.rowid);
      } catch (err) {
        mapWriteError(name, d.doc._id, err);
      }
      this.track(meta, d.doc);
      if (meta.search && meta.search.fields.some((f) => searchText(d.stored!, f) !== searchText(d.doc!, f))) {
        this.run(`DELETE FROM ${meta.search.fts} WHERE rowid = ?`, d.rowid);
        this.indexSearch(meta, d.rowid!, d.doc);
      }
    }
    inserts.sort((a, b) => a.inserted - b.inserted);
    for (const d of inserts) {
      const meta = p.meta!;
      let rowid: number | bigint;
      try {
        rowid = this.run(`INSERT INTO ${meta.tbl} (id, body) VALUES (?, ?)`, d.doc!._id, JSON.stringify(d.doc)).lastInsertRowid;
      } catch (err) {
        mapWriteError(name, d.doc!._id, err);
      }
      this.track(meta, d.doc!);
      if (meta.search) this.indexSearch(meta, Number(rowid), d.doc!);
    }
    this.changed(name);
  }

  /** Adds a document's text to the collection's search index. */
  indexSearch(meta: Meta, rowid: number, doc: Doc): void {
    const fields = meta.search!.fields;
    this.run(
      `INSERT INTO ${meta.search!.fts} (rowid, ${fields.map((_, i) => `c${i}`).join(', ')}) VALUES (?, ${fields.map(() => '?').join(', ')})`,
      rowid,
      ...fields.map((f) => searchText(doc, f)),
    );
  }

  /** The collection's metadata, or undefined when it does not exist. */
  meta(name: string): Meta | undefined {
    this.refresh();
    return this.metas.get(name);
  }

  /** The collection's metadata, creating the collection (inside a write). */
  ensure(name: string): Meta {
    const existing = this.meta(name);
    if (existing) return existing;
    const tbl = `d_${randomBytes(6).toString('hex')}`;
    this.db.exec(`CREATE TABLE ${tbl} (id TEXT NOT NULL PRIMARY KEY, body TEXT NOT NULL)`);
    this.run('INSERT INTO rs_collections (name, tbl) VALUES (?, ?)', name, tbl);
    const meta: Meta = { name, tbl, arrays: new Set(), odd: new Set(), indexes: [] };
    this.metas.set(name, meta);
    return meta;
  }

  dropMeta(meta: Meta): void {
    this.db.exec(`DROP TABLE IF EXISTS ${meta.tbl}`);
    if (meta.search) this.db.exec(`DROP TABLE IF EXISTS ${meta.search.fts}`);
    this.run('DELETE FROM rs_collections WHERE name = ?', meta.name);
    this.metas.delete(meta.name);
    this.forgetStatements(meta.tbl);
    this.changed(meta.name);
  }

  /** Records the paths of `doc` that hold arrays, objects or booleans (persisted when new). */
  track(meta: Meta, doc: Doc): void {
    let grew = false;
    const walk = (v: Record<string, unknown>, prefix: string) => {
      for (const k of Object.keys(v)) {
        const x = v[k];
        if (x === null || typeof x !== 'object') {
          if (typeof x === 'boolean' && !meta.odd.has(prefix + k)) {
            meta.odd.add(prefix + k);
            grew = true;
          }
          continue;
        }
        const path = prefix + k;
        if (Array.isArray(x)) {
          if (!meta.arrays.has(path)) {
            meta.arrays.add(path);
            grew = true;
          }
          continue;
        }
        if (!meta.odd.has(path)) {
          meta.odd.add(path);
          grew = true;
        }
        walk(x as Record<string, unknown>, `${path}.`);
      }
    };
    walk(doc, '');
    if (grew) this.run('UPDATE rs_collections SET arrays = ?, odd = ? WHERE name = ?', JSON.stringify([...meta.arrays]), JSON.stringify([...meta.odd]), meta.name);
  }

  addIndex(meta: Meta, index: { name: string; keys: Record<string, 1 | -1>; unique?: boolean }): void {
    if (meta.indexes.some((i) => i.name === index.name)) return;
    meta.indexes.push(index);
    this.run('UPDATE rs_collections SET indexes = ? WHERE name = ?', JSON.stringify(meta.indexes), meta.name);
  }

  setSearch(meta: Meta, search: { fts: string; fields: string[] }): void {
    meta.search = search;
    this.run('UPDATE rs_collections SET search = ? WHERE name = ?', JSON.stringify(search), meta.name);
  }

  /** A cached prepared statement. */
  stmt(sql: string): Statement<unknown[], unknown> {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  run(sql: string, ...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.stmt(sql).run(...params);
  }

  /** Reloads the catalogue when another connection committed since it was read. */
  private refresh(): void {
    if (this.refreshedInTxn && this.db.inTransaction) return;
    if (this.db.inTransaction) this.refreshedInTxn = true;
    const version = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.anythingChangedAt = ++this.changeClock;
    const catalogue = Number((this.stmt('SELECT version FROM rs_catalogue').get() as { version: number }).version);
    if (catalogue === this.catalogueVersion) return;
    this.catalogueVersion = catalogue;
    this.metas.clear();
    const rows = this.stmt('SELECT name, tbl, arrays, odd, search, indexes FROM rs_collections').all() as {
      name: string;
      tbl: string;
      arrays: string;
      odd: string;
      search: string | null;
      indexes: string;
    }[];
    for (const r of rows) {
      this.metas.set(r.name, {
        name: r.name,
        tbl: r.tbl,
        arrays: new Set(JSON.parse(r.arrays) as string[]),
        odd: new Set(JSON.parse(r.odd) as string[]),
        indexes: JSON.parse(r.indexes) as Meta['indexes'],
        ...(r.search ? { search: JSON.parse(r.search) as Meta['search'] } : {}),
      });
    }
  }

  /** After a rollback the cached catalogue may be ahead of the file: read it again. */
  private forget(): void {
    this.anythingChangedAt = ++this.changeClock;
    this.dataVersion = -1;
    this.catalogueVersion = -1;
    this.refreshedInTxn = false;
  }

  private forgetStatements(tbl: string): void {
    for (const sql of [...this.statements.keys()]) if (sql.includes(tbl)) this.statements.delete(sql);
  }
}

/** The SQL expression of a document path (`_id` is the key column). Null when the path cannot be named in SQL. */
function pathExpr(path: string): string | null {
  if (path === '_id') return 'id';
  const parts = path.split('.');
  if (!parts.every((p) => SEGMENT.test(p))) return null;
  return `json_extract(body, '$.${parts.map((p) => `"${p}"`).join('.')}')`;
}

function jsonTypeExpr(path: string): string {
  return `json_type(body, '$.${path
    .split('.')
    .map((p) => `"${p}"`)
    .join('.')}')`;
}

const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether the path or one of its prefixes ever held an array (Mongo's array rules apply there). */
function touchesArray(meta: Meta, path: string): boolean {
  if (meta.arrays.size === 0) return false;
  let at = -1;
  do {
    at = path.indexOf('.', at + 1);
    if (meta.arrays.has(at < 0 ? path : path.slice(0, at))) return true;
  } while (at >= 0);
  return false;
}

const and = (parts: Where[]): Where => {
  const real = parts.filter((p) => p.sql !== '1');
  if (real.length === 0) return { ...ALL, exact: parts.every((p) => p.exact) };
  return { sql: real.map((p) => `(${p.sql})`).join(' AND '), params: real.flatMap((p) => p.params), exact: parts.every((p) => p.exact) };
};

/** The WHERE clause of one equality on a scalar. */
function eq(meta: Meta, path: string, e: string, x: unknown): Where {
  if (x === null) return { sql: `${e} IS NULL`, params: [], exact: path !== '_id' };
  if (typeof x === 'string') return { sql: `${e} = ?`, params: [x], exact: true };
  if (typeof x === 'number' && Number.isFinite(x)) return { sql: `${e} = ?`, params: [x], exact: !meta.odd.has(path) };
  if (typeof x === 'boolean') return { sql: `${e} = ?`, params: [x ? 1 : 0], exact: false };
  return ANY;
}

function not(w: Where): Where {
  if (w.sql === '1') return w.exact ? { sql: '0', params: [], exact: true } : ANY;
  return { sql: `NOT ifnull(${w.sql}, 0)`, params: w.params, exact: w.exact };
}

function range(meta: Meta, path: string, e: string, op: string, x: unknown): Where {
  const sqlOp = op === '$gt' ? '>' : op === '$gte' ? '>=' : op === '$lt' ? '<' : '<=';
  if (typeof x === 'string') return { sql: `${e} ${sqlOp} ? AND typeof(${e}) = 'text'`, params: [x], exact: !meta.odd.has(path) };
  if (typeof x === 'number' && Number.isFinite(x)) {
    return { sql: `${e} ${sqlOp} ? AND typeof(${e}) IN ('integer', 'real')`, params: [x], exact: !meta.odd.has(path) };
  }
  return ANY;
}

function fieldWhere(meta: Meta, path: string, condition: unknown): Where {
  const e = pathExpr(path);
  if (!e || touchesArray(meta, path)) return ANY;
  if (!isPlain(condition)) return Array.isArray(condition) ? ANY : eq(meta, path, e, condition);
  const ops = Object.keys(condition);
  if (ops.length === 0 || !ops.every((o) => o.startsWith('$'))) return ANY;
  const parts: Where[] = [];
  for (const op of ops) {
    const x = condition[op];
    switch (op) {
      case '$eq':
        parts.push(isPlain(x) || Array.isArray(x) ? ANY : eq(meta, path, e, x));
        break;
      case '$ne':
        parts.push(isPlain(x) || Array.isArray(x) ? ANY : not(eq(meta, path, e, x)));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        parts.push(range(meta, path, e, op, x));
        break;
      case '$in':
      case '$nin': {
        if (!Array.isArray(x) || x.some((v) => isPlain(v) || Array.isArray(v))) {
          parts.push(ANY);
          break;
        }
        let w: Where;
        if (x.length === 0) w = { sql: '0', params: [], exact: true };
        else if (x.every((v) => typeof v === 'string')) w = { sql: `${e} IN (${x.map(() => '?').join(', ')})`, params: x, exact: true };
        else w = or(x.map((v) => eq(meta, path, e, v)));
        parts.push(op === '$in' ? w : not(w));
        break;
      }
      case '$exists':
        if (typeof x !== 'boolean') parts.push(ANY);
        else if (path === '_id') parts.push(x ? ALL : { sql: '0', params: [], exact: true });
        else parts.push({ sql: `${jsonTypeExpr(path)} IS ${x ? 'NOT ' : ''}NULL`, params: [], exact: true });
        break;
      case '$options':
        if (!('$regex' in condition)) parts.push(ANY);
        break;
      default:
        parts.push(ANY); // $regex and anything else: the matcher decides
    }
  }
  return and(parts);
}

function or(parts: Where[]): Where {
  const always = parts.find((p) => p.sql === '1');
  if (always) return always.exact ? ALL : ANY;
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), params: parts.flatMap((p) => p.params), exact: parts.every((p) => p.exact) };
}

const REGEX_SPECIAL = new Set([...'.*+?^${}()|[]\\']);

/** The literal a regex pattern matches (escaped specials only), or null when it is not a plain literal. */
function regexLiteral(pattern: string): string | null {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[++i];
      if (next === undefined || !REGEX_SPECIAL.has(next)) return null;
      out += next;
    } else if (REGEX_SPECIAL.has(c)) return null;
    else out += c;
  }
  return out;
}

/**
 * An `$or` of case-insensitive literal regexes over fields of the search index: the rows the
 * substring index names (literals of three characters or more), or a LIKE pre-filter (ASCII
 * literals only: LIKE folds ASCII case, as the regex's `i` does). Always a superset; the
 * matcher decides. `rows()` picks LIKE when the first rows in order already hold the page.
 */
function searchWhere(meta: Meta, branches: unknown[], mode: SearchMode): Where | null {
  const search = meta.search;
  if (!search) return null;
  let literal: string | undefined;
  const fields: string[] = [];
  for (const b of branches) {
    if (!isPlain(b)) return null;
    const keys = Object.keys(b);
    if (keys.length !== 1 || !search.fields.includes(keys[0])) return null;
    const c = b[keys[0]];
    if (!isPlain(c) || typeof c.$regex !== 'string' || c.$options !== 'i' || Object.keys(c).length !== 2) return null;
    const lit = regexLiteral(c.$regex);
    if (lit === null || (literal !== undefined && lit !== literal)) return null;
    literal = lit;
    fields.push(keys[0]);
  }
  if (!literal || !/^[\x20-\x7e]*$/.test(literal)) return null;
  if (mode === 'base') return ANY;
  if (literal.length >= 3 && mode === 'index') {
    const cols = fields.map((f) => `c${search.fields.indexOf(f)}`).join(' ');
    const match = `{${cols}} : "${literal.replace(/"/g, '""')}"`;
    return { sql: `rowid IN (SELECT rowid FROM ${search.fts} WHERE ${search.fts} MATCH ?)`, params: [match], exact: false };
  }
  const like = `%${literal.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const exprs = fields.map(pathExpr).filter((e): e is string => e !== null);
  if (exprs.length !== fields.length) return null;
  return { sql: exprs.map((e) => `${e} LIKE ? ESCAPE '\\'`).join(' OR '), params: exprs.map(() => like), exact: false };
}

/**
 * How a search condition becomes SQL: through the substring index (`index`, LIKE below three
 * characters), always LIKE (`like`), or not at all (`base`, the other conditions alone).
 */
type SearchMode = 'index' | 'like' | 'base';

/** The WHERE clause of a filter (exact, or a superset the matcher narrows). */
function whereOf(meta: Meta, filter: Filter, mode: SearchMode = 'index'): Where {
  if (!isPlain(filter)) return ANY;
  const parts: Where[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition) || condition.length === 0) return ANY;
      if (key === '$or') {
        const s = searchWhere(meta, condition, mode);
        if (s) {
          parts.push(s);
          continue;
        }
      }
      const subs = condition.map((c) => whereOf(meta, c as Filter, mode));
      parts.push(key === '$and' ? and(subs) : or(subs));
      continue;
    }
    if (key.startsWith('$')) return ANY;
    parts.push(fieldWhere(meta, key, condition));
  }
  return and(parts);
}

/** ORDER BY of a sort, or null when SQL cannot order as Mongo does (arrays, objects, booleans on a path). */
function orderOf(meta: Meta, sort: Sort | undefined): string | null {
  const keys = sort ? Object.keys(sort) : [];
  const terms: string[] = [];
  for (const k of keys) {
    const e = pathExpr(k);
    if (!e || touchesArray(meta, k) || meta.odd.has(k)) return null;
    terms.push(`${e} ${sort![k] === -1 ? 'DESC' : 'ASC'}`);
  }
  if (!keys.includes('_id')) terms.push('rowid ASC'); // ties in insertion order, as a stable sort
  return terms.join(', ');
}

/**
 * The index to read a sorted query from, as `INDEXED BY` (SQLite's planner, without
 * statistics, prefers an index that bounds a range and then sorts every row in the range, which
 * for a dense range is far slower than reading in order and stopping after the page). Chosen
 * like this: an index whose leading fields are all pinned by equalities of the filter and
 * whose next fields follow the sort (at least its first key, every direction as given or every
 * one reversed); the most pinned fields first, then the longest part of the sort.
 */
function indexedBy(meta: Meta, filter: Filter, sort: Sort | undefined): string {
  const sortKeys = sort ? Object.keys(sort) : [];
  if (!sortKeys.length || !meta.indexes.length || !isPlain(filter)) return '';
  const pinned = new Set(
    Object.entries(filter)
      .filter(([k, v]) => !k.startsWith('$') && (typeof v === 'string' || (typeof v === 'number' && !meta.odd.has(k)) || (isPlain(v) && Object.keys(v).length === 1 && typeof v.$eq === 'string')))
      .map(([k]) => k),
  );
  let best: { name: string; pins: number; covers: number } | undefined;
  for (const index of meta.indexes) {
    const keys = Object.keys(index.keys);
    let pins = 0;
    while (pins < keys.length && pinned.has(keys[pins])) pins++;
    let covers = 0;
    let flip: boolean | undefined;
    while (pins + covers < keys.length && covers < sortKeys.length && keys[pins + covers] === sortKeys[covers]) {
      const same = index.keys[keys[pins + covers]] === sort![sortKeys[covers]];
      if (flip !== undefined && flip === same) break;
      flip = !same;
      covers++;
    }
    if (covers === 0) continue;
    if (!best || pins > best.pins || (pins === best.pins && covers > best.covers)) best = { name: index.name, pins, covers };
  }
  return best ? ` INDEXED BY ${best.name}` : '';
}

const isCount = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n >= 0;

function indexName(tbl: string, spec: IndexSpec): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([spec.keys, !!spec.unique]))
    .digest('hex')
    .slice(0, 12);
  return `${tbl}_${hash}`;
}

function mapWriteError(collection: string, id: string, err: unknown): never {
  const code = sqliteCode(err);
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
    throw new DuplicateKeyError(collection, code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? id : (err as Error).message.replace(/^.*UNIQUE constraint failed: /, ''));
  }
  throw err;
}

class SqliteCollection implements Collection<Doc> {
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
    this.store.flush(this.name);
    const meta = this.store.meta(this.name);
    return meta ? this.select(meta, filter, options) : [];
  }

  async count(filter: Filter): Promise<number> {
    this.store.flush(this.name);
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
    const p = this.store.pendingOf(this.name);
    if (p) return this.insertPending(p, doc);
    await this.store.write(() => this.insert(this.store.ensure(this.name), doc));
  }

  async replaceOne(filter: Filter, doc: Doc, options: { upsert?: boolean } = {}) {
    const hit = this.pendingFor(filter);
    if (hit && (hit.matches || !options.upsert || typeof doc._id === 'string')) {
      if (hit.matches) {
        this.store.setPending(this.name, hit.d, jsonCopy({ ...doc, _id: hit.d.doc!._id }));
        return { matched: 1, upserted: false };
      }
      if (!options.upsert) return { matched: 0, upserted: false };
      this.insertPending(hit.p, doc);
      return { matched: 0, upserted: true };
    }
    this.store.flush(this.name);
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
        this.store.setPending(this.name, hit.d, jsonCopy({ ...next, _id: hit.d.doc!._id }));
        return { matched: 1, upserted: false };
      }
      if (!options.upsert) return { matched: 0, upserted: false };
      const seed = upsertSeed(filter);
      applyUpdateFast(seed as Doc, withOnInsert(update));
      if (typeof seed._id !== 'string') throw new Error(`upsert into ${this.name} needs an _id equality in its filter`);
      this.insertPending(hit.p, seed as Doc);
      return { matched: 0, upserted: true };
    }
    this.store.flush(this.name);
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
    this.store.flush(this.name);
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
      this.store.setPending(this.name, hit.d, null);
      return { deleted: 1 };
    }
    this.store.flush(this.name);
    return this.store.write(() => {
      const meta = this.store.meta(this.name);
      const row = meta && this.rows(meta, filter, { limit: 1 })[0];
      if (!meta || !row) return { deleted: 0 };
      this.remove(meta, row);
      return { deleted: 1 };
    });
  }

  async deleteMany(filter: Filter) {
    this.store.flush(this.name);
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
      this.store.flush(this.name);
      const meta = this.store.ensure(this.name);
      const fields = Object.keys(spec.keys);
      if (spec.search) {
        if (meta.search) return;
        const fts = `${meta.tbl}_search`;
        this.store.db.exec(
          `CREATE VIRTUAL TABLE ${fts} USING fts5(${fields.map((_, i) => `c${i}`).join(', ')}, tokenize = 'trigram', content = '', contentless_delete = 1)`,
        );
        this.store.setSearch(meta, { fts, fields });
        const texts = fields.map(searchTextExpr);
        if (texts.every((t) => t !== null)) {
          // The rows already there, in one statement (a bulk load creates its indexes after the rows).
          this.store.db.exec(`INSERT INTO ${fts} (rowid, ${fields.map((_, i) => `c${i}`).join(', ')}) SELECT rowid, ${texts.join(', ')} FROM ${meta.tbl}`);
        } else {
          for (const r of this.store.stmt(`SELECT rowid, id, body FROM ${meta.tbl}`).iterate() as Iterable<Row>) this.indexSearch(meta, r.rowid, JSON.parse(r.body) as Doc);
        }
        return;
      }
      const exprs = fields.map((f) => {
        const e = pathExpr(f);
        if (!e) throw new Error(`cannot index ${this.name}.${f}: field names are letters, digits, _ and -`);
        return e;
      });
      const dir = (f: string) => (spec.keys[f] === -1 ? ' DESC' : '');
      const name = indexName(meta.tbl, spec);
      this.store.db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON ${meta.tbl} (${exprs.map((e, i) => e + dir(fields[i])).join(', ')})`);
      this.store.addIndex(meta, { name, keys: spec.keys, ...(spec.unique ? { unique: true } : {}) });
      if (spec.unique) {
        // As in MongoDB, a missing field counts as null and nulls collide: a constraint of its
        // own over the values with null made a blob (no JSON value extracts as one).
        try {
          this.store.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${name}_u ON ${meta.tbl} (${exprs.map((e) => `ifnull(${e}, x'00')`).join(', ')})`);
        } catch (err) {
          mapWriteError(this.name, '', err);
        }
      }
    });
  }

  async drop(): Promise<void> {
    await this.store.write(() => {
      this.store.flush(this.name);
      const meta = this.store.meta(this.name);
      if (meta) this.store.dropMeta(meta);
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
    const p = id === undefined ? undefined : this.store.pendingOf(this.name);
    if (!p) {
      this.store.flush(this.name);
      return undefined;
    }
    const d = this.store.pendingDoc(p, id!);
    return { p, d, matches: d.doc !== null && (Object.keys(filter).length === 1 || filterMatcher(filter)(d.doc)) };
  }

  /** Inserts a document as pending (DuplicateKeyError when its `_id` is taken). */
  private insertPending(p: PendingCollection, doc: Doc): void {
    const d = this.store.pendingDoc(p, doc._id);
    if (d.doc !== null) throw new DuplicateKeyError(this.name, doc._id);
    p.meta ??= this.store.ensure(this.name);
    this.store.setPending(this.name, d, jsonCopy(doc), true);
  }

  /** How many rows the filter's substring search names, counting to `SEARCH_MANY` at most. */
  private searchHits(meta: Meta, filter: Filter): number {
    const branches = isPlain(filter) ? filter.$or : undefined;
    const s = meta.search && Array.isArray(branches) ? searchWhere(meta, branches, 'index') : null;
    if (!s || !meta.search || !s.sql.includes(' MATCH ?')) return 0;
    const fts = meta.search.fts;
    return (this.store.stmt(`SELECT count(*) AS n FROM (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? LIMIT ${SEARCH_MANY})`).get(...s.params) as { n: number }).n;
  }

  /** The matching rows, in the sort's order (insertion order without one), paged. */
  private rows(meta: Meta, filter: Filter, options: FindOptions): Row[] {
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

  private select(meta: Meta, filter: Filter, options: FindOptions): Doc[] {
    return this.rows(meta, filter, options).map((r) => JSON.parse(r.body) as Doc);
  }

  private insert(meta: Meta, doc: Doc): void {
    let rowid: number | bigint;
    try {
      rowid = this.store.run(`INSERT INTO ${meta.tbl} (id, body) VALUES (?, ?)`, doc._id, JSON.stringify(doc)).lastInsertRowid;
    } catch (err) {
      mapWriteError(this.name, doc._id, err);
    }
    this.store.track(meta, doc);
    if (meta.search) this.indexSearch(meta, Number(rowid), doc);
    this.store.changed(this.name);
  }

  private replace(meta: Meta, row: Row, next: Doc): void {
    try {
      this.store.run(`UPDATE ${meta.tbl} SET body = ? WHERE rowid = ?`, JSON.stringify(next), row.rowid);
    } catch (err) {
      mapWriteError(this.name, row.id, err);
    }
    this.store.track(meta, next);
    if (meta.search) {
      const before = JSON.parse(row.body) as Doc;
      if (meta.search.fields.some((f) => searchText(before, f) !== searchText(next, f))) {
        this.store.run(`DELETE FROM ${meta.search.fts} WHERE rowid = ?`, row.rowid);
        this.indexSearch(meta, row.rowid, next);
      }
    }
    this.store.changed(this.name);
  }

  private remove(meta: Meta, row: Row): void {
    this.store.run(`DELETE FROM ${meta.tbl} WHERE rowid = ?`, row.rowid);
    if (meta.search) this.store.run(`DELETE FROM ${meta.search.fts} WHERE rowid = ?`, row.rowid);
    this.store.changed(this.name);
  }

  private indexSearch(meta: Meta, rowid: number, doc: Doc): void {
    this.store.indexSearch(meta, rowid, doc);
  }
}

/** The `_id` a filter names by equality (its other conditions are then tested on that one document). */
function idOf(filter: Filter): string | undefined {
  if (!isPlain(filter)) return undefined;
  const id = filter._id;
  if (typeof id === 'string') return id;
  if (isPlain(id) && typeof id.$eq === 'string' && Object.keys(id).length === 1) return id.$eq;
  return undefined;
}

/** A copy of JSON-shaped data as storing and reading it back makes it (undefined fields dropped, Dates as strings). */
function jsonCopy<T>(v: T): T {
  return jsonValue(v) as T;
}

function jsonValue(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (v === null) return null;
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return jsonValue(toJSON.call(v));
      if (Array.isArray(v)) return v.map((x) => jsonValue(x) ?? null);
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        const x = jsonValue((v as Record<string, unknown>)[k]);
        if (x !== undefined) out[k] = x;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** `searchText` in SQL: the string at the path, else ''. Null when the path cannot be named in SQL. */
function searchTextExpr(field: string): string | null {
  const e = pathExpr(field);
  if (!e || field === '_id') return e;
  return `CASE ${jsonTypeExpr(field)} WHEN 'text' THEN ${e} ELSE '' END`;
}

function searchText(doc: Doc, field: string): string {
  const v = field.split('.').reduce<unknown>((x, k) => (isPlain(x) ? x[k] : undefined), doc);
  return typeof v === 'string' ? v : '';
}
