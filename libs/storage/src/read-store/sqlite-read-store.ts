import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ReadStore, type Collection, type Doc } from '@gensvc/event-sourcing';
import { SqliteDatabase, isBusy, type Statement } from '../sqlite/sqlite';
import { SqliteCollection } from './sqlite-collection';
import { SqliteTables, type CollectionMeta } from './sqlite-tables';
import { StatementCache } from './statement-cache';
import { WriteBehindCache } from './write-behind-cache';

export interface SqliteReadStoreOptions {
  /** Page cache of the connection in MiB (the store's memory bound besides one query's rows). */
  readonly cacheMb?: number;
}

/**
 * Embedded read store: documents as JSON in SQLite (`DATA_DIR/read.db`, WAL), persisted with
 * their projections' checkpoints, so a start resumes where the projections stopped instead of
 * rebuilding. One table per collection (`id`, `body`), in a catalogue (`rs_collections`) that
 * maps names to tables, so `renameCollection` is one transaction that moves a name (the tables
 * and the catalogue: `SqliteTables`).
 *
 * Queries (`SqliteCollection`, through `sqlite-filter-compiler.ts`): a Mongo filter becomes a
 * WHERE clause over `json_extract` expressions, the same ones `createIndex` indexes, so
 * SQLite's planner uses the indexes for equalities, ranges and the sort. When the translation
 * is exact (scalars on paths that never held arrays), SQL sorts and pages alone; otherwise the
 * clause is a superset and each row is checked by the same matcher the other stores follow
 * (mingo's rules), in the SQL order, stopping after skip + limit. A sort SQL cannot order as
 * Mongo would (paths with arrays, objects or booleans) is done by mingo. A `search` index is
 * an FTS5 trigram table: case-insensitive literal `$regex` searches of three characters or
 * more read the rows it names, unless the first 500 rows in the sort's order already hold the
 * page (a common literal): then the ordered scan filters with LIKE.
 *
 * Writes are single transactions (`BEGIN IMMEDIATE`: a read-modify-write such as a conditional
 * replace is atomic against other processes on the same file). `transaction(fn)` groups every
 * write `fn` makes into one; writes of other callers of this process wait meanwhile. Inside it,
 * the operations that name one document by `_id` (what projections do) work on parsed copies
 * held in memory (`WriteBehindCache`) and written out once, when `fn` ends (or when 20,000
 * are held, or before any other operation on the collection): a document an event batch
 * changes several times is parsed and written once. Readers outside the transaction see the
 * rows as they were. Memory: the page cache (`cacheMb`), the rows of the query at hand, and a
 * transaction's pending documents (at most 20,000).
 */
export class SqliteReadStore extends ReadStore {
  /** The collections' tables and the catalogue that names them. */
  readonly tables: SqliteTables;
  /** The running transaction's pending documents (see `transaction`). */
  readonly cache: WriteBehindCache;
  private readonly statements: StatementCache;
  private dataVersion = -1;
  private readonly batches = new AsyncLocalStorage<object>();
  private batchToken: object | undefined;
  private batchDone: Promise<void> = Promise.resolve();
  /** The catalogue was read inside the running write transaction (no other writer can change it). */
  private refreshedInTxn = false;
  /** Change stamps (see `changeStamp`): a clock, when each collection last changed here, when anything may have changed. */
  private changeClock = 0;
  private readonly changedAt = new Map<string, number>();
  private anythingChangedAt = 0;

  private constructor(readonly db: SqliteDatabase) {
    super();
    this.statements = new StatementCache(db);
    this.tables = new SqliteTables(db, this.statements);
    this.cache = new WriteBehindCache(this);
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
      this.cache.flushAll();
      const target = this.meta(to);
      if (target) this.dropCollection(target);
      const source = this.meta(from);
      if (source) this.tables.rename(source, to);
      this.changed(from);
      this.changed(to);
    });
  }

  override async listCollections(): Promise<string[]> {
    this.refresh();
    return this.tables.names();
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
        this.cache.flushAll();
      } catch (err) {
        this.cache.discard();
        this.db.rollback();
        this.forget();
        throw err;
      }
      this.db.commit();
      return result;
    } finally {
      this.cache.discard();
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

  /** The collection's metadata, or undefined when it does not exist. */
  meta(name: string): CollectionMeta | undefined {
    this.refresh();
    return this.tables.get(name);
  }

  /** The collection's metadata, creating the collection (inside a write). */
  ensure(name: string): CollectionMeta {
    return this.meta(name) ?? this.tables.create(name);
  }

  /** Drops a collection (inside a write). */
  dropCollection(meta: CollectionMeta): void {
    this.tables.drop(meta);
    this.changed(meta.name);
  }

  /** A cached prepared statement. */
  stmt(sql: string): Statement<unknown[], unknown> {
    return this.statements.get(sql);
  }

  /** Reloads the catalogue when another connection committed since it was read. */
  private refresh(): void {
    if (this.refreshedInTxn && this.db.inTransaction) return;
    if (this.db.inTransaction) this.refreshedInTxn = true;
    const version = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.anythingChangedAt = ++this.changeClock;
    this.tables.reload();
  }

  /** After a rollback the cached catalogue may be ahead of the file: read it again. */
  private forget(): void {
    this.anythingChangedAt = ++this.changeClock;
    this.dataVersion = -1;
    this.tables.invalidate();
    this.refreshedInTxn = false;
  }
}
