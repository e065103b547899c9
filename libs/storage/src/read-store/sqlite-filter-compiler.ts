import type { Doc, Filter, Sort } from '@gensvc/event-sourcing';

/**
 * Mongo-style filters and sorts of the embedded read store as SQL over a documents table
 * (`id`, `body` as JSON): a filter becomes a WHERE clause over `json_extract` expressions, the
 * same ones the collection's indexes index, so SQLite's planner uses the indexes for
 * equalities, ranges and the sort. Pure: what it needs of a collection is its shape (the
 * paths that ever held arrays, objects or booleans, its search index and its indexes).
 *
 * A clause is `exact` when it selects exactly the filter's documents (scalars on paths that
 * never held arrays); otherwise it is a superset, and each row is checked by the matcher the
 * other stores follow (mingo's rules). A sort SQL cannot order as Mongo would (paths with
 * arrays, objects or booleans) has no ORDER BY (null): mingo sorts.
 */

/** What the compiler knows of a collection (the store's catalogue keeps it). */
export interface CollectionShape {
  /** Paths that ever held an array: conditions on them (and below) are left to the matcher. */
  readonly arrays: ReadonlySet<string>;
  /** Paths that ever held an object or a boolean: comparisons on them are not exact in SQL. */
  readonly odd: ReadonlySet<string>;
  /** The substring search index (an FTS5 trigram table, one column per field), when declared. */
  readonly search?: { readonly fts: string; readonly fields: readonly string[] };
  /** The secondary indexes: SQL name, keys, and whether unique. */
  readonly indexes: readonly { readonly name: string; readonly keys: Record<string, 1 | -1>; readonly unique?: boolean }[];
}

/** A WHERE clause: `exact` when it selects exactly the filter's documents (no matcher needed). */
export interface Where {
  readonly sql: string;
  readonly params: unknown[];
  readonly exact: boolean;
}

const ANY: Where = { sql: '1', params: [], exact: false };
const ALL: Where = { sql: '1', params: [], exact: true };

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The SQL expression of a document path (`_id` is the key column). Null when the path cannot be named in SQL. */
export function pathExpr(path: string): string | null {
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

export const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether the path or one of its prefixes ever held an array (Mongo's array rules apply there). */
function touchesArray(meta: CollectionShape, path: string): boolean {
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
function eq(meta: CollectionShape, path: string, e: string, x: unknown): Where {
  if (x === null) return { sql: `${e} IS NULL`, params: [], exact: path !== '_id' };
  if (typeof x === 'string') return { sql: `${e} = ?`, params: [x], exact: true };
  if (typeof x === 'number' && Number.isFinite(x)) return { sql: `${e} = ?`, params: [x], exact: !meta.odd.has(path) };
  if (typeof x === 'boolean') return { sql: `${e} = ?`, params: [x ? 1 : 0], exact: false };
  return ANY;
}

/** The negation of an exact clause. A superset's negation would be a subset: the matcher decides. */
function not(w: Where): Where {
  if (!w.exact) return ANY;
  if (w.sql === '1') return { sql: '0', params: [], exact: true };
  return { sql: `NOT ifnull(${w.sql}, 0)`, params: w.params, exact: true };
}

function range(meta: CollectionShape, path: string, e: string, op: string, x: unknown): Where {
  const sqlOp = op === '$gt' ? '>' : op === '$gte' ? '>=' : op === '$lt' ? '<' : '<=';
  if (typeof x === 'string') return { sql: `${e} ${sqlOp} ? AND typeof(${e}) = 'text'`, params: [x], exact: !meta.odd.has(path) };
  if (typeof x === 'number' && Number.isFinite(x)) {
    return { sql: `${e} ${sqlOp} ? AND typeof(${e}) IN ('integer', 'real')`, params: [x], exact: !meta.odd.has(path) };
  }
  return ANY;
}

function fieldWhere(meta: CollectionShape, path: string, condition: unknown): Where {
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
 * matcher decides. The collection picks LIKE when the first rows in order already hold the page.
 */
export function searchWhere(meta: CollectionShape, branches: unknown[], mode: SearchMode): Where | null {
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
export type SearchMode = 'index' | 'like' | 'base';

/** The WHERE clause of a filter (exact, or a superset the matcher narrows). */
export function whereOf(meta: CollectionShape, filter: Filter, mode: SearchMode = 'index'): Where {
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
export function orderOf(meta: CollectionShape, sort: Sort | undefined): string | null {
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
export function indexedBy(meta: CollectionShape, filter: Filter, sort: Sort | undefined): string {
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

/** The `_id` a filter names by equality (its other conditions are then tested on that one document). */
export function idOf(filter: Filter): string | undefined {
  if (!isPlain(filter)) return undefined;
  const id = filter._id;
  if (typeof id === 'string') return id;
  if (isPlain(id) && typeof id.$eq === 'string' && Object.keys(id).length === 1) return id.$eq;
  return undefined;
}

/** `searchText` in SQL: the string at the path, else ''. Null when the path cannot be named in SQL. */
export function searchTextExpr(field: string): string | null {
  const e = pathExpr(field);
  if (!e || field === '_id') return e;
  return `CASE ${jsonTypeExpr(field)} WHEN 'text' THEN ${e} ELSE '' END`;
}

/** The text of a document at a search field, as the search index holds it: the string there, else ''. */
export function searchText(doc: Doc, field: string): string {
  const v = field.split('.').reduce<unknown>((x, k) => (isPlain(x) ? x[k] : undefined), doc);
  return typeof v === 'string' ? v : '';
}
