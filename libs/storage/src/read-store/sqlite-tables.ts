import { createHash, randomBytes } from 'node:crypto';
import { DuplicateKeyError, type Doc, type IndexSpec } from '@gensvc/event-sourcing';
import { sqliteCode, type SqliteDatabase } from '../sqlite/sqlite';
import { pathExpr, searchText, searchTextExpr, type CollectionShape } from './sqlite-filter-compiler';
import type { StatementCache } from './statement-cache';

/** What the store knows of one collection (cached per process, refreshed when another connection commits). */
export interface CollectionMeta extends CollectionShape {
  readonly name: string;
  /** Physical table of the documents; renames move the name, never the table. */
  readonly tbl: string;
  readonly arrays: Set<string>;
  readonly odd: Set<string>;
  search?: { readonly fts: string; readonly fields: string[] };
  indexes: IndexEntry[];
}

/** A secondary index of a collection: SQL name, keys, and whether unique. */
export interface IndexEntry {
  readonly name: string;
  readonly keys: Record<string, 1 | -1>;
  readonly unique?: boolean;
}

/** A SQLite constraint failure of a write as the port's `DuplicateKeyError`; anything else passes through. */
export function mapWriteError(collection: string, id: string, err: unknown): never {
  const code = sqliteCode(err);
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
    throw new DuplicateKeyError(collection, code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? id : (err as Error).message.replace(/^.*UNIQUE constraint failed: /, ''));
  }
  throw err;
}

function indexName(tbl: string, spec: IndexSpec): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([spec.keys, !!spec.unique]))
    .digest('hex')
    .slice(0, 12);
  return `${tbl}_${hash}`;
}

/**
 * The tables behind the read store's collections: one table per collection (`id`, `body`),
 * an optional FTS5 table for its substring search, and the catalogue (`rs_collections`) that
 * maps names to tables and records what the filter compiler must know of each (the paths that
 * held arrays, objects or booleans; the search fields; the indexes). Row writes here keep a
 * table's search index and catalogue entry in step with its documents. Every write runs
 * inside the caller's transaction.
 */
export class SqliteTables {
  private readonly metas = new Map<string, CollectionMeta>();
  /** `rs_catalogue.version` when the catalogue was read: bumped by triggers at each change of `rs_collections`. */
  private version = -1;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly statements: StatementCache,
  ) {
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

  /** Reads the catalogue again if it changed since it was read (call when another connection committed). */
  reload(): void {
    const catalogue = Number((this.statements.get('SELECT version FROM rs_catalogue').get() as { version: number }).version);
    if (catalogue === this.version) return;
    this.version = catalogue;
    this.metas.clear();
    const rows = this.statements.get('SELECT name, tbl, arrays, odd, search, indexes FROM rs_collections').all() as {
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
        indexes: JSON.parse(r.indexes) as IndexEntry[],
        ...(r.search ? { search: JSON.parse(r.search) as CollectionMeta['search'] } : {}),
      });
    }
  }

  /** After a rollback the cached catalogue may be ahead of the file: the next `reload` reads it. */
  invalidate(): void {
    this.version = -1;
  }

  /** The collection's metadata as last read, or undefined when it does not exist. */
  get(name: string): CollectionMeta | undefined {
    return this.metas.get(name);
  }

  names(): string[] {
    return [...this.metas.keys()];
  }

  /** Creates the collection's table and catalogue entry. */
  create(name: string): CollectionMeta {
    const tbl = `d_${randomBytes(6).toString('hex')}`;
    this.db.exec(`CREATE TABLE ${tbl} (id TEXT NOT NULL PRIMARY KEY, body TEXT NOT NULL)`);
    this.statements.run('INSERT INTO rs_collections (name, tbl) VALUES (?, ?)', name, tbl);
    const meta: CollectionMeta = { name, tbl, arrays: new Set(), odd: new Set(), indexes: [] };
    this.metas.set(name, meta);
    return meta;
  }

  drop(meta: CollectionMeta): void {
    this.db.exec(`DROP TABLE IF EXISTS ${meta.tbl}`);
    if (meta.search) this.db.exec(`DROP TABLE IF EXISTS ${meta.search.fts}`);
    this.statements.run('DELETE FROM rs_collections WHERE name = ?', meta.name);
    this.metas.delete(meta.name);
    this.statements.forget(meta.tbl);
  }

  /** Gives the collection another name (its tables stay). */
  rename(meta: CollectionMeta, to: string): void {
    this.statements.run('UPDATE rs_collections SET name = ? WHERE name = ?', to, meta.name);
    this.metas.delete(meta.name);
    this.metas.set(to, { ...meta, name: to });
  }

  /** Records the paths of `doc` that hold arrays, objects or booleans (persisted when new). */
  track(meta: CollectionMeta, doc: Doc): void {
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
    if (grew) this.statements.run('UPDATE rs_collections SET arrays = ?, odd = ? WHERE name = ?', JSON.stringify([...meta.arrays]), JSON.stringify([...meta.odd]), meta.name);
  }

  private addIndex(meta: CollectionMeta, index: IndexEntry): void {
    if (meta.indexes.some((i) => i.name === index.name)) return;
    meta.indexes.push(index);
    this.statements.run('UPDATE rs_collections SET indexes = ? WHERE name = ?', JSON.stringify(meta.indexes), meta.name);
  }

  private setSearch(meta: CollectionMeta, search: { fts: string; fields: string[] }): void {
    meta.search = search;
    this.statements.run('UPDATE rs_collections SET search = ? WHERE name = ?', JSON.stringify(search), meta.name);
  }

  /** Creates the collection's substring search index over `fields` (an FTS5 trigram table), once. */
  createSearch(meta: CollectionMeta, fields: string[]): void {
    if (meta.search) return;
    const fts = `${meta.tbl}_search`;
    this.db.exec(`CREATE VIRTUAL TABLE ${fts} USING fts5(${fields.map((_, i) => `c${i}`).join(', ')}, tokenize = 'trigram', content = '', contentless_delete = 1)`);
    this.setSearch(meta, { fts, fields });
    const texts = fields.map(searchTextExpr);
    if (texts.every((t) => t !== null)) {
      // The rows already there, in one statement (a bulk load creates its indexes after the rows).
      this.db.exec(`INSERT INTO ${fts} (rowid, ${fields.map((_, i) => `c${i}`).join(', ')}) SELECT rowid, ${texts.join(', ')} FROM ${meta.tbl}`);
    } else {
      for (const r of this.statements.get(`SELECT rowid, body FROM ${meta.tbl}`).iterate() as Iterable<{ rowid: number; body: string }>) {
        this.indexSearch(meta, r.rowid, JSON.parse(r.body) as Doc);
      }
    }
  }

  /** Creates a secondary index over the `json_extract` expressions the filter compiler uses (DuplicateKeyError when a unique one finds duplicates). */
  createIndex(meta: CollectionMeta, spec: IndexSpec): void {
    const fields = Object.keys(spec.keys);
    const exprs = fields.map((f) => {
      const e = pathExpr(f);
      if (!e) throw new Error(`cannot index ${meta.name}.${f}: field names are letters, digits, _ and -`);
      return e;
    });
    const dir = (f: string) => (spec.keys[f] === -1 ? ' DESC' : '');
    const name = indexName(meta.tbl, spec);
    this.db.exec(`CREATE INDEX IF NOT EXISTS ${name} ON ${meta.tbl} (${exprs.map((e, i) => e + dir(fields[i])).join(', ')})`);
    this.addIndex(meta, { name, keys: spec.keys, ...(spec.unique ? { unique: true } : {}) });
    if (spec.unique) {
      // As in MongoDB, a missing field counts as null and nulls collide: a constraint of its
      // own over the values with null made a blob (no JSON value extracts as one).
      try {
        this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${name}_u ON ${meta.tbl} (${exprs.map((e) => `ifnull(${e}, x'00')`).join(', ')})`);
      } catch (err) {
        mapWriteError(meta.name, '', err);
      }
    }
  }

  /** Inserts a row for `doc` (DuplicateKeyError when its `_id` or a unique key is taken). */
  insertRow(meta: CollectionMeta, doc: Doc): void {
    let rowid: number | bigint;
    try {
      rowid = this.statements.run(`INSERT INTO ${meta.tbl} (id, body) VALUES (?, ?)`, doc._id, JSON.stringify(doc)).lastInsertRowid;
    } catch (err) {
      mapWriteError(meta.name, doc._id, err);
    }
    this.track(meta, doc);
    if (meta.search) this.indexSearch(meta, Number(rowid), doc);
  }

  /** Replaces the document of row `rowid` by `next`; `before` (read only if the collection has a search index) is the one it replaces. */
  updateRow(meta: CollectionMeta, rowid: number, next: Doc, before: () => Doc): void {
    try {
      this.statements.run(`UPDATE ${meta.tbl} SET body = ? WHERE rowid = ?`, JSON.stringify(next), rowid);
    } catch (err) {
      mapWriteError(meta.name, next._id, err);
    }
    this.track(meta, next);
    if (meta.search) {
      const stored = before();
      if (meta.search.fields.some((f) => searchText(stored, f) !== searchText(next, f))) {
        this.statements.run(`DELETE FROM ${meta.search.fts} WHERE rowid = ?`, rowid);
        this.indexSearch(meta, rowid, next);
      }
    }
  }

  deleteRow(meta: CollectionMeta, rowid: number): void {
    this.statements.run(`DELETE FROM ${meta.tbl} WHERE rowid = ?`, rowid);
    if (meta.search) this.statements.run(`DELETE FROM ${meta.search.fts} WHERE rowid = ?`, rowid);
  }

  /** Adds a document's text to the collection's search index. */
  indexSearch(meta: CollectionMeta, rowid: number, doc: Doc): void {
    const fields = meta.search!.fields;
    this.statements.run(
      `INSERT INTO ${meta.search!.fts} (rowid, ${fields.map((_, i) => `c${i}`).join(', ')}) VALUES (?, ${fields.map(() => '?').join(', ')})`,
      rowid,
      ...fields.map((f) => searchText(doc, f)),
    );
  }
}
