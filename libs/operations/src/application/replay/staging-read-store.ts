import { Query, find, update as applyUpdate } from 'mingo';
import { DuplicateKeyError, ReadStore, type Collection, type Doc, type Filter, type FindOptions, type IndexSpec, type Update } from '@gensvc/shared';

/**
 * Where a replay builds read models before they are copied into the real read store: an
 * in-memory store with the same (Mongo) semantics as the embedded read store, tuned for the
 * access pattern of projections. Filters made only of top-level equalities on primitive
 * values (`{_id}`, `{_id, _pos}`: what `documentProjection` uses) are evaluated directly,
 * without compiling a mingo query; anything else goes through mingo. Unique indexes are
 * hash maps instead of scans. Documents handed in or out are copies.
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

/** Deep copy of JSON-like data; much cheaper than structuredClone for small documents. */
export function copy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copy) as T;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = copy((v as Record<string, unknown>)[k]);
  return out as T;
}

type Matcher = (doc: Doc) => boolean;

const isPrimitive = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

const COMPARISONS = new Set(['$eq', '$ne', '$lt', '$lte', '$gt', '$gte']);

/** `{$lt: 5}`, `{$gte: 'a', $lt: 'b'}`: comparisons with a number or string operand. */
function isSimpleCondition(v: unknown): v is Record<string, number | string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const entries = Object.entries(v);
  return entries.length > 0 && entries.every(([op, x]) => COMPARISONS.has(op) && (typeof x === 'number' || typeof x === 'string'));
}

/** One comparison where the stored value has the operand's type (other cases go to mingo). */
function compare(op: string, actual: number | string, x: number | string): boolean {
  switch (op) {
    case '$eq':
      return actual === x;
    case '$ne':
      return actual !== x;
    case '$lt':
      return actual < x;
    case '$lte':
      return actual <= x;
    case '$gt':
      return actual > x;
    default:
      return actual >= x;
  }
}

/**
 * A matcher for the filter. Top-level equalities on primitives and comparisons of numbers or
 * strings are evaluated directly (projections filter by `_id` and guard with `_pos`); whatever
 * needs Mongo's finer rules (arrays, missing fields in comparisons, mixed types, other
 * operators) goes to mingo, compiled once per filter.
 */
function matcher(filter: Filter): Matcher {
  const entries = Object.entries(filter);
  const simple = entries.every(([k, v]) => !k.startsWith('$') && (isPrimitive(v) || isSimpleCondition(v)));
  let query: Query | undefined;
  const viaMingo = (doc: Doc) => (query ??= new Query(filter)).test(doc);
  if (!simple) return viaMingo;
  return (doc) => {
    for (const [path, expected] of entries) {
      const actual = getPath(doc, path);
      if (actual === NEEDS_MINGO) return viaMingo(doc);
      if (isPrimitive(expected)) {
        if (expected === null ? actual !== null && actual !== undefined : actual !== expected) return false;
        continue;
      }
      for (const [op, x] of Object.entries(expected as Record<string, number | string>)) {
        if (typeof actual !== typeof x) return viaMingo(doc);
        if (!compare(op, actual as number | string, x)) return false;
      }
    }
    return true;
  };
}

const FAST_UPDATES = new Set(['$set', '$inc', '$unset']);

/**
 * Applies `$set`, `$inc` and `$unset` on plain paths directly; anything else (other
 * operators, overlapping paths, arrays or non-objects on a path, `$inc` of a non-number)
 * goes through mingo's updater, which gives Mongo's results and errors.
 */
function applyUpdateFast(doc: Doc, update: Update): void {
  if (!canUpdateFast(doc, update)) {
    applyUpdate(doc, update as never);
    return;
  }
  for (const [op, fields] of Object.entries(update)) {
    for (const [path, value] of Object.entries(fields as Record<string, unknown>)) {
      const keys = path.split('.');
      const last = keys.pop()!;
      let parent: Record<string, unknown> | undefined = doc;
      for (const k of keys) {
        if (parent[k] === undefined) {
          if (op === '$unset') {
            parent = undefined;
            break;
          }
          parent[k] = {};
        }
        parent = parent[k] as Record<string, unknown>;
      }
      if (!parent) continue;
      if (op === '$set') parent[last] = copy(value);
      else if (op === '$unset') delete parent[last];
      else parent[last] = ((parent[last] as number | undefined) ?? 0) + (value as number);
    }
  }
}

function canUpdateFast(doc: Doc, update: Update): boolean {
  const ops = Object.entries(update);
  if (!ops.every(([op, fields]) => FAST_UPDATES.has(op) && fields !== null && typeof fields === 'object' && !Array.isArray(fields))) return false;
  const paths = ops.flatMap(([, fields]) => Object.keys(fields as object));
  if (!paths.every((p, i) => p !== '_id' && !p.includes('$') && !p.split('.').includes('') && paths.every((q, j) => i === j || (p !== q && !q.startsWith(`${p}.`))))) {
    return false;
  }
  for (const [op, fields] of ops) {
    for (const [path, value] of Object.entries(fields as Record<string, unknown>)) {
      const keys = path.split('.');
      const last = keys.pop()!;
      let parent: Record<string, unknown> | undefined = doc;
      for (const k of keys) {
        const next: unknown = parent[k];
        if (next === undefined) {
          parent = undefined; // the rest of the path is created ($set, $inc) or absent ($unset)
          break;
        }
        if (next === null || typeof next !== 'object' || Array.isArray(next)) return false;
        parent = next as Record<string, unknown>;
      }
      const current = parent?.[last];
      if (op === '$inc' && (typeof value !== 'number' || (current !== undefined && typeof current !== 'number'))) return false;
      if (op === '$set' && value === undefined) return false;
    }
  }
  return true;
}

const NEEDS_MINGO = Symbol('array on path');

/** Value at a dotted path; NEEDS_MINGO where arrays make Mongo's matching rules apply. */
function getPath(doc: Record<string, unknown>, path: string): unknown {
  let v: unknown = doc;
  for (const key of path.includes('.') ? path.split('.') : [path]) {
    if (Array.isArray(v)) return NEEDS_MINGO;
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return Array.isArray(v) ? NEEDS_MINGO : v;
}

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
    const m = matcher(filter);
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
    const seed = equalities(filter);
    if (typeof seed._id !== 'string') throw new Error(`upsert into ${this._name} needs an _id equality in its filter`);
    const doc = seed as Doc;
    applyUpdateFast(doc, withOnInsert(update));
    await this.insertOne(doc);
    return { matched: 0, upserted: true };
  }

  async updateMany(filter: Filter, update: Update) {
    const m = matcher(filter);
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
    const m = matcher(filter);
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
    const m = matcher(filter);
    for (const d of this.candidates(filter)) if (m(d)) return d;
    return undefined;
  }
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
    out[k] = copy(v);
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
