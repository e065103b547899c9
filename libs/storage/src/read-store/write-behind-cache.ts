import type { Doc } from '@gensvc/event-sourcing';
import type { SqliteReadStore } from './sqlite-read-store';
import type { CollectionMeta } from './sqlite-tables';

/**
 * A document as the running write transaction sees it, not yet written (see
 * `SqliteReadStore.transaction`): the stored row (if any) and the document the transaction
 * made of it.
 */
export interface Pending {
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
export interface PendingCollection {
  readonly name: string;
  meta: CollectionMeta | undefined;
  readonly docs: Map<string, Pending>;
}

/** Documents a write transaction holds before writing them out (its memory bound). */
const PENDING_LIMIT = 20_000;

/**
 * The documents a write transaction of the embedded read store holds in memory: inside
 * `transaction(fn)`, the operations that name one document by `_id` (what projections do)
 * work on parsed copies held here and written out once, when `fn` ends (or when 20,000 are
 * held, or before any other operation on the collection): a document an event batch changes
 * several times is parsed and written once. Collections with a unique index are not held (a
 * violation must show at the operation that causes it).
 */
export class WriteBehindCache {
  private readonly pending = new Map<string, PendingCollection>();
  private count = 0;
  private insertSeq = 0;

  constructor(private readonly store: SqliteReadStore) {}

  /**
   * The pending documents of a collection, for an operation on one document by `_id` inside
   * the running transaction; undefined outside it, or when the collection has a unique index
   * (its violations must show at the operation that causes them).
   */
  pendingOf(name: string): PendingCollection | undefined {
    if (!this.store.inBatch()) return undefined;
    if (this.count >= PENDING_LIMIT) this.flushAll();
    let p = this.pending.get(name);
    if (p) return p;
    const meta = this.store.meta(name);
    if (meta?.indexes.some((i) => i.unique)) return undefined;
    p = { name, meta, docs: new Map() };
    this.pending.set(name, p);
    return p;
  }

  /** The document `id` as the running transaction sees it (loaded on first use). */
  pendingDoc(p: PendingCollection, id: string): Pending {
    let d = p.docs.get(id);
    if (d) return d;
    const row = p.meta ? (this.store.stmt(`SELECT rowid, body FROM ${p.meta.tbl} WHERE id = ?`).get(id) as { rowid: number; body: string } | undefined) : undefined;
    const stored = row ? (JSON.parse(row.body) as Doc) : null;
    d = { rowid: row?.rowid, stored, doc: stored, dirty: false, inserted: 0 };
    p.docs.set(id, d);
    this.count++;
    return d;
  }

  /**
   * Sets a pending document of collection `name` (null: deleted; otherwise held as storing
   * and reading it back would make it) and records the change; `inserted`: it is a new row
   * (new rows are written in insertion order).
   */
  setPending(name: string, d: Pending, doc: Doc | null, inserted = false): void {
    d.doc = doc === null ? null : jsonCopy(doc);
    d.dirty = true;
    if (inserted) d.inserted = ++this.insertSeq;
    this.store.changed(name);
  }

  /** Writes out the pending documents of one collection (before another operation on it). */
  flush(name: string): void {
    if (!this.store.inBatch()) return;
    const p = this.pending.get(name);
    if (!p) return;
    this.pending.delete(name);
    this.count -= p.docs.size;
    this.write(p);
  }

  /** Writes out every pending document. */
  flushAll(): void {
    if (!this.store.db.inTransaction) return;
    const all = [...this.pending.values()];
    this.pending.clear();
    this.count = 0;
    for (const p of all) this.write(p);
  }

  /** Forgets every pending document (the transaction ended, or rolled back). */
  discard(): void {
    this.pending.clear();
    this.count = 0;
  }

  private write(p: PendingCollection): void {
    const tables = this.store.tables;
    const inserts: Pending[] = [];
    for (const d of p.docs.values()) {
      if (!d.dirty) continue;
      const meta = p.meta!;
      if (d.doc === null || d.inserted) {
        if (d.rowid !== undefined) {
          // deleted, or deleted and inserted again (a new row, as a delete and an insert make)
          tables.deleteRow(meta, d.rowid);
          d.rowid = undefined;
          d.stored = null;
        }
        if (d.doc !== null) inserts.push(d);
        continue;
      }
      tables.updateRow(meta, d.rowid!, d.doc, () => d.stored!);
    }
    inserts.sort((a, b) => a.inserted - b.inserted);
    for (const d of inserts) tables.insertRow(p.meta!, d.doc!);
    this.store.changed(p.name);
  }
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
