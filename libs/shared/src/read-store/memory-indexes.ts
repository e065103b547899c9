import type { Doc, Filter, IndexSpec, Sort } from './read-store.port';
import { IRREGULAR, filterEqualities, filterRange, resolvePath } from './simple-filter';

/**
 * Secondary indexes of the embedded read store: for each declared index, the documents in
 * the index's order (its keys with their directions, then `_id`), kept in a chunked sorted
 * list updated on every write (binary insertion into chunks of at most CHUNK entries).
 *
 * An index serves queries only while every document holds a string or a number at each of
 * its fields (no array, object, null or missing value): Mongo's ordering of other values and
 * its array semantics are left to the full scan. A query uses an index when the filter pins
 * its leading fields by equality (and optionally bounds the next one by a range); the
 * documents of that window are contiguous. When the sort follows the index's next fields, the
 * window is read in order and the read stops after skip + limit matches.
 */

/** One stored document with its insertion sequence (the order of a full scan) and index keys. */
export interface Entry {
  readonly id: string;
  doc: Doc;
  readonly seq: number;
  /** Per index slot: the key, or null when the document is irregular for that index. */
  keys: (Key | null)[];
}

export type KeyValue = string | number;
export type Key = KeyValue[];

const CHUNK = 512;

const rank = (v: KeyValue): number => (typeof v === 'number' ? 0 : 1);

/** Mingo's order of numbers and strings: numbers first, then natural order within a type. */
export function compareValues(a: KeyValue, b: KeyValue): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

const isKeyValue = (v: unknown): v is KeyValue =>
  typeof v === 'string' || (typeof v === 'number' && !Number.isNaN(v) && !Object.is(v, -0));

/** A position in the chunked list: chunk number and offset. */
interface Pos {
  c: number;
  i: number;
}

/** A window of an index chosen for a query. */
export interface IndexWindow {
  readonly index: SecondaryIndex;
  readonly start: Pos;
  readonly end: Pos;
  readonly size: number;
  /** Number of leading index fields pinned by equality. */
  readonly pinned: number;
  /** Number of index fields after the pinned ones that give the sort order (0: unordered). */
  readonly ordered: number;
  /** Read the window backwards to get the sort order. */
  readonly reverse: boolean;
}

export class SecondaryIndex {
  readonly fields: readonly string[];
  private readonly parts: readonly string[][];
  private readonly dirs: readonly number[];
  /** Documents irregular for this index; the index serves queries only while there is none. */
  irregular = 0;
  private chunks: Entry[][] = [];

  constructor(
    readonly spec: IndexSpec,
    readonly slot: number,
  ) {
    this.fields = Object.keys(spec.keys);
    this.parts = this.fields.map((f) => f.split('.'));
    this.dirs = this.fields.map((f) => (spec.keys[f] === -1 ? -1 : 1));
  }

  get usable(): boolean {
    return this.irregular === 0 && this.fields.length > 0;
  }

  get size(): number {
    let n = 0;
    for (const c of this.chunks) n += c.length;
    return n;
  }

  keyOf(doc: Doc): Key | null {
    const key: Key = new Array(this.fields.length);
    for (let i = 0; i < this.fields.length; i++) {
      const v = resolvePath(doc, this.fields[i], this.parts[i]);
      if (v === IRREGULAR || !isKeyValue(v)) return null;
      key[i] = v;
    }
    return key;
  }

  private compareKeys(a: Key, b: Key): number {
    for (let i = 0; i < a.length; i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c * this.dirs[i];
    }
    return 0;
  }

  private compareEntries(a: Entry, b: Entry): number {
    return this.compareKeys(a.keys[this.slot]!, b.keys[this.slot]!) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }

  /** Records the entry (its key in `entry.keys[slot]` computed here). */
  add(entry: Entry): void {
    const key = this.keyOf(entry.doc);
    entry.keys[this.slot] = key;
    if (key === null) {
      this.irregular++;
      return;
    }
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    const p = this.search((x) => this.compareEntries(x, entry) < 0);
    const c = Math.min(p.c, this.chunks.length - 1);
    const chunk = this.chunks[c];
    const i = p.c === c ? p.i : chunk.length;
    chunk.splice(i, 0, entry);
    if (chunk.length > CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(CHUNK >> 1));
  }

  /** Forgets the entry as recorded by `add` (before its document changes). */
  remove(entry: Entry): void {
    const key = entry.keys[this.slot];
    if (key === null || key === undefined) {
      if (key === null) this.irregular--;
      return;
    }
    const p = this.search((x) => this.compareEntries(x, entry) < 0);
    const chunk = this.chunks[p.c];
    if (!chunk || chunk[p.i] !== entry) throw new Error(`memory read store: index ${this.fields.join(',')} lost an entry`);
    chunk.splice(p.i, 1);
    if (chunk.length === 0) this.chunks.splice(p.c, 1);
  }

  /** Whether the entry's key for this index would change with `doc`. */
  changes(entry: Entry, doc: Doc): boolean {
    const before = entry.keys[this.slot];
    const after = this.keyOf(doc);
    if (before === null || after === null) return before !== after;
    for (let i = 0; i < after.length; i++) if (before![i] !== after[i]) return true;
    return false;
  }

  /** Rebuilds the list from scratch (index creation over existing documents). */
  build(entries: Iterable<Entry>): void {
    const all: Entry[] = [];
    this.irregular = 0;
    for (const e of entries) {
      const key = this.keyOf(e.doc);
      e.keys[this.slot] = key;
      if (key === null) this.irregular++;
      else all.push(e);
    }
    all.sort((a, b) => this.compareEntries(a, b));
    this.chunks = [];
    for (let i = 0; i < all.length; i += CHUNK >> 1) this.chunks.push(all.slice(i, i + (CHUNK >> 1)));
  }

  /** The first position whose entry is not `before` (before must be monotone: true, then false). */
  private search(before: (e: Entry) => boolean): Pos {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = chunks[mid];
      if (before(chunk[chunk.length - 1])) lo = mid + 1;
      else hi = mid;
    }
    if (lo === chunks.length) return { c: lo, i: 0 };
    const chunk = chunks[lo];
    let a = 0;
    let b = chunk.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (before(chunk[mid])) a = mid + 1;
      else b = mid;
    }
    return { c: lo, i: a };
  }

  private rank(p: Pos): number {
    let n = p.i;
    for (let c = 0; c < p.c; c++) n += this.chunks[c].length;
    return n;
  }

  /**
   * The window of entries whose first `pinned.length` fields equal `pinned` and whose next
   * field lies within `range` (type-bracketed as Mongo does: a string bound keeps strings).
   */
  window(pinned: Key, range: { lower?: KeyValue; upper?: KeyValue } | null): { start: Pos; end: Pos; size: number } {
    const n = pinned.length;
    const dir = this.dirs[n];
    const slot = this.slot;
    const type = range ? rank((range.lower ?? range.upper)!) : 0;
    // Position of an entry relative to the window in index order: -1 before, 0 in, 1 after.
    const where = (e: Entry): number => {
      const key = e.keys[slot]!;
      for (let i = 0; i < n; i++) {
        const c = compareValues(key[i], pinned[i]);
        if (c !== 0) return c * this.dirs[i] < 0 ? -1 : 1;
      }
      if (!range) return 0;
      const v = key[n];
      let c = rank(v) - type;
      if (c === 0 && range.lower !== undefined && compareValues(v, range.lower) < 0) c = -1;
      if (c === 0 && range.upper !== undefined && compareValues(v, range.upper) > 0) c = 1;
      return c * dir < 0 ? -1 : c * dir > 0 ? 1 : 0;
    };
    const start = this.search((e) => where(e) < 0);
    const end = this.search((e) => where(e) <= 0);
    return { start, end, size: this.rank(end) - this.rank(start) };
  }

  /** Calls `visit` on the entries of [start, end) in order (or reverse) until it returns false. */
  scan(start: Pos, end: Pos, reverse: boolean, visit: (e: Entry) => boolean): void {
    const chunks = this.chunks;
    if (!reverse) {
      for (let c = start.c; c <= end.c && c < chunks.length; c++) {
        const chunk = chunks[c];
        const to = c === end.c ? end.i : chunk.length;
        for (let i = c === start.c ? start.i : 0; i < to; i++) if (!visit(chunk[i])) return;
      }
      return;
    }
    for (let c = Math.min(end.c, chunks.length - 1); c >= start.c; c--) {
      const chunk = chunks[c];
      const from = c === end.c ? end.i - 1 : chunk.length - 1;
      const to = c === start.c ? start.i : 0;
      for (let i = from; i >= to; i--) if (!visit(chunk[i])) return;
    }
  }

  /**
   * How this index can serve a query: the window pinned by the filter's equalities on its
   * leading fields (and a range on the next one), and how much of the sort its order gives.
   * Null when the filter pins nothing and the index gives no order.
   */
  plan(filter: Filter, sort: Sort | undefined, equalities: Map<string, unknown>): IndexWindow | null {
    if (!this.usable) return null;
    const pinned: Key = [];
    while (pinned.length < this.fields.length) {
      const v = equalities.get(this.fields[pinned.length]);
      if (!isKeyValue(v)) break;
      pinned.push(v);
    }
    const n = pinned.length;
    const range = n < this.fields.length ? filterRange(filter, this.fields[n]) : null;
    const usableRange =
      range && (range.lower === undefined || range.upper === undefined || rank(range.lower) === rank(range.upper)) ? range : null;
    // The sort without the pinned fields (constant in the window) must follow the next fields.
    let ordered = 0;
    let reverse = false;
    if (sort) {
      const pinnedFields = new Set(this.fields.slice(0, n));
      const rest = Object.entries(sort).filter(([f]) => !pinnedFields.has(f));
      for (const [f, d] of rest) {
        const i = n + ordered;
        if (i >= this.fields.length || this.fields[i] !== f) break;
        const same = (d === -1 ? -1 : 1) === this.dirs[i];
        if (ordered === 0) reverse = !same;
        else if (same === reverse) break;
        ordered++;
      }
    }
    if (n === 0 && !usableRange && ordered === 0) return null;
    const w = this.window(pinned, usableRange);
    return { index: this, ...w, pinned: n, ordered, reverse };
  }

  /** Whether two entries hold the same values on the ordered fields of a window (a run of ties). */
  sameRun(a: Entry, b: Entry, from: number, count: number): boolean {
    const ka = a.keys[this.slot]!;
    const kb = b.keys[this.slot]!;
    for (let i = from; i < from + count; i++) if (ka[i] !== kb[i]) return false;
    return true;
  }
}

/** The best index window for a query, or null for a full scan. */
export function chooseWindow(indexes: readonly SecondaryIndex[], filter: Filter, sort: Sort | undefined, wantOrder: boolean): IndexWindow | null {
  if (indexes.length === 0) return null;
  const equalities = filterEqualities(filter);
  let bestOrdered: IndexWindow | null = null;
  let bestAny: IndexWindow | null = null;
  for (const index of indexes) {
    const w = index.plan(filter, sort, equalities);
    if (!w) continue;
    const pinsSomething = w.pinned > 0 || w.size < index.size;
    if (wantOrder && w.ordered > 0 && (!bestOrdered || w.size < bestOrdered.size || (w.size === bestOrdered.size && w.ordered > bestOrdered.ordered))) bestOrdered = w;
    if (pinsSomething && (!bestAny || w.size < bestAny.size)) bestAny = w;
  }
  // Reading in order stops early; a much smaller unordered window is still cheaper.
  if (bestOrdered && (!bestAny || bestAny.size * 8 >= bestOrdered.size)) return bestOrdered;
  if (bestAny) return { ...bestAny, ordered: 0 };
  return bestOrdered;
}
