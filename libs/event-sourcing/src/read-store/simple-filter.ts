import { Query } from 'mingo';
import type { Doc, Filter } from './read-store.port';

/**
 * Direct evaluation of the common Mongo filters, without compiling a mingo query: field
 * equalities and `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`, `$exists`,
 * `$regex` (+ `$options`), `$and`, `$or`, on plain (non-array) values. The answer is three-way:
 * true, false, or UNKNOWN when the document needs Mongo's finer rules (an array or object on
 * the path, a missing field under `$exists` of a dotted path, ...); the caller then asks mingo
 * for that document. Filters with anything else compile to null: mingo evaluates them whole.
 * The rules follow mingo 7 exactly (type-bracketed comparisons, null matching missing).
 */
export const FALSE = 0;
export const TRUE = 1;
export const UNKNOWN = 2;
export type Tri = typeof FALSE | typeof TRUE | typeof UNKNOWN;
export type Predicate = (doc: Doc) => Tri;

/** A value met on a path that only mingo can judge (an array, an object, a function). */
export const IRREGULAR: unique symbol = Symbol('irregular');

/** The plain value at a dotted path: undefined when missing, IRREGULAR when not plain. */
export function resolvePath(doc: Record<string, unknown>, path: string, parts?: readonly string[]): unknown {
  let v: unknown;
  if (parts === undefined || parts.length === 1) {
    v = doc[path];
  } else {
    v = doc;
    for (const k of parts) {
      if (v === undefined) return undefined;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return IRREGULAR;
      v = (v as Record<string, unknown>)[k];
    }
  }
  if (v === undefined || v === null) return v;
  const t = typeof v;
  return t === 'object' || t === 'function' || t === 'symbol' || t === 'bigint' ? IRREGULAR : v;
}

type Scalar = string | number | boolean | null;

const isScalar = (v: unknown): v is Scalar =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && !Number.isNaN(v) && !Object.is(v, -0));

const isComparable = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && isScalar(v));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex', '$options']);
const FORBIDDEN_SEGMENT = /^(\d+|__proto__|constructor|prototype|)$/;

/** Splits a field path; null when mingo must handle it (array indexes, odd names). */
function fieldPath(path: string): string[] | null {
  if (path.startsWith('$')) return null;
  const parts = path.split('.');
  return parts.some((p) => FORBIDDEN_SEGMENT.test(p) || p.startsWith('$')) ? null : parts;
}

/** The value-level test of one condition; the value is plain (not IRREGULAR). */
type Leaf = (v: unknown) => Tri;

const simpleCmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

function eqLeaf(x: Scalar): Leaf {
  return x === null ? (v) => (v === null || v === undefined ? TRUE : FALSE) : (v) => (v === x ? TRUE : FALSE);
}

function compareLeaf(op: string, x: string | number): Leaf {
  const type = typeof x;
  const test =
    op === '$gt' ? (c: number) => c > 0 : op === '$gte' ? (c: number) => c >= 0 : op === '$lt' ? (c: number) => c < 0 : (c: number) => c <= 0;
  return (v) => (typeof v === type && test(simpleCmp(v as string | number, x)) ? TRUE : FALSE);
}

function inLeaf(list: readonly Scalar[]): Leaf {
  const hasNull = list.includes(null);
  return (v) => (v === null || v === undefined ? (hasNull ? TRUE : FALSE) : list.some((x) => x === v) ? TRUE : FALSE);
}

const not =
  (leaf: Leaf): Leaf =>
  (v) => {
    const r = leaf(v);
    return r === UNKNOWN ? UNKNOWN : r === TRUE ? FALSE : TRUE;
  };

/** The conditions of one field, or null when any is beyond this evaluator. */
function fieldLeaves(condition: unknown, nested: boolean): Leaf[] | null {
  if (isScalar(condition)) return [eqLeaf(condition)];
  if (!isPlainObject(condition)) return null;
  const ops = Object.keys(condition);
  if (ops.length === 0 || !ops.every((op) => OPERATORS.has(op))) return null;
  const leaves: Leaf[] = [];
  for (const op of ops) {
    const x = condition[op];
    switch (op) {
      case '$eq':
      case '$ne':
        if (!isScalar(x)) return null;
        leaves.push(op === '$eq' ? eqLeaf(x) : not(eqLeaf(x)));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (!isComparable(x)) return null;
        leaves.push(compareLeaf(op, x));
        break;
      case '$in':
      case '$nin':
        if (!Array.isArray(x) || !x.every(isScalar)) return null;
        leaves.push(op === '$in' ? inLeaf(x) : not(inLeaf(x)));
        break;
      case '$exists': {
        if (typeof x !== 'boolean') return null;
        const b = x ? TRUE : FALSE;
        const nb = x ? FALSE : TRUE;
        leaves.push((v) => (v !== undefined ? b : nested ? UNKNOWN : nb));
        break;
      }
      case '$regex': {
        const options = condition.$options;
        if (typeof x !== 'string' || (options !== undefined && (typeof options !== 'string' || !/^[imsu]*$/.test(options)))) return null;
        let re: RegExp;
        try {
          re = new RegExp(x, options as string | undefined);
        } catch {
          return null;
        }
        leaves.push((v) => (typeof v === 'string' && re.test(v) ? TRUE : FALSE));
        break;
      }
      case '$options':
        if (!('$regex' in condition)) return null;
        break;
    }
  }
  return leaves;
}

function and(preds: Predicate[]): Predicate {
  if (preds.length === 1) return preds[0];
  return (doc) => {
    let r: Tri = TRUE;
    for (const p of preds) {
      const x = p(doc);
      if (x === FALSE) return FALSE;
      if (x === UNKNOWN) r = UNKNOWN;
    }
    return r;
  };
}

function or(preds: Predicate[]): Predicate {
  return (doc) => {
    let r: Tri = FALSE;
    for (const p of preds) {
      const x = p(doc);
      if (x === TRUE) return TRUE;
      if (x === UNKNOWN) r = UNKNOWN;
    }
    return r;
  };
}

/** The predicate of one field's conditions. */
function fieldPredicate(key: string, parts: string[], leaves: Leaf[]): Predicate {
  if (parts.length === 1 && leaves.length === 1) {
    // The common case, kept small for the optimizer: a top-level field, one condition.
    const leaf = leaves[0];
    return (doc) => {
      const v = doc[key];
      if (v !== null && v !== undefined) {
        const t = typeof v;
        if (t === 'object' || t === 'function' || t === 'symbol' || t === 'bigint') return UNKNOWN;
      }
      return leaf(v);
    };
  }
  return (doc) => {
    const v = resolvePath(doc, key, parts);
    if (v === IRREGULAR) return UNKNOWN;
    let r: Tri = TRUE;
    for (const l of leaves) {
      const x = l(v);
      if (x === FALSE) return FALSE;
      if (x === UNKNOWN) r = UNKNOWN;
    }
    return r;
  };
}

/**
 * A three-way predicate for the filter, or null when mingo must evaluate it. `implied`: top-level
 * fields whose plain equality is known to hold for every document that will be tested (an
 * index window pinned on them); they are not evaluated again.
 */
export function compileFilter(filter: Filter, implied?: ReadonlySet<string>): Predicate | null {
  if (!isPlainObject(filter)) return null;
  const preds: Predicate[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition) || condition.length === 0) return null;
      const subs: Predicate[] = [];
      for (const sub of condition) {
        const p = compileFilter(sub as Filter);
        if (!p) return null;
        subs.push(p);
      }
      preds.push(key === '$and' ? and(subs) : or(subs));
      continue;
    }
    const parts = fieldPath(key);
    if (!parts) return null;
    const leaves = fieldLeaves(condition, parts.length > 1);
    if (!leaves) return null;
    if (implied?.has(key) && isScalar(condition)) continue;
    preds.push(fieldPredicate(key, parts, leaves));
  }
  if (preds.length === 0) return () => TRUE;
  return and(preds);
}

/**
 * A boolean test of the filter: direct when possible, mingo for the rest (compiled once, on
 * the first document the direct evaluation cannot judge). `implied` as for compileFilter.
 */
export function filterMatcher(filter: Filter, implied?: ReadonlySet<string>): (doc: Doc) => boolean {
  const direct = compileFilter(filter, implied);
  if (!direct) {
    const q = new Query(filter);
    return (d) => q.test(d);
  }
  let q: Query | undefined;
  return (d) => {
    const r = direct(d);
    return r === UNKNOWN ? (q ??= new Query(filter)).test(d) : r === TRUE;
  };
}

/**
 * Top-level equalities of a filter on scalar values (`{a: 'x'}`, `{a: {$eq: 'x', ...}}`):
 * every matching document holds exactly that value there (arrays aside).
 */
export function filterEqualities(filter: Filter): Map<string, Scalar> {
  const out = new Map<string, Scalar>();
  for (const [key, condition] of Object.entries(filter)) {
    if (key.startsWith('$')) continue;
    if (isScalar(condition)) out.set(key, condition);
    else if (isPlainObject(condition) && '$eq' in condition && isScalar(condition.$eq)) out.set(key, condition.$eq);
  }
  return out;
}

/** Bounds implied by a top-level range condition on `key` (`$gt`/`$gte`, `$lt`/`$lte`), operands strings or numbers. */
export function filterRange(filter: Filter, key: string): { lower?: string | number; upper?: string | number } | null {
  const condition = filter[key];
  if (!isPlainObject(condition)) return null;
  const lower = '$gte' in condition ? condition.$gte : condition.$gt;
  const upper = '$lte' in condition ? condition.$lte : condition.$lt;
  const out: { lower?: string | number; upper?: string | number } = {};
  if (isComparable(lower)) out.lower = lower;
  if (isComparable(upper)) out.upper = upper;
  return out.lower === undefined && out.upper === undefined ? null : out;
}
