import { update as applyUpdate } from 'mingo';
import type { Doc, Filter, Update } from './read-store.port';

/** Deep copy of JSON-like data as structuredClone makes it, much cheaper for plain documents. */
export function cloneDocument<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneDocument(v[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = cloneDocument((v as Record<string, unknown>)[k]);
  return out as T;
}

/** Top-level equality conditions of a filter, the seed of an upserted document. */
export function upsertSeed(filter: Filter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k.startsWith('$')) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const ops = Object.keys(v);
      if (ops.length === 1 && ops[0] === '$eq') out[k] = (v as { $eq: unknown }).$eq;
      continue;
    }
    out[k] = cloneDocument(v);
  }
  return out;
}

/** The update applied to an existing document: without `$setOnInsert`. */
export function stripOnInsert(update: Update): Update {
  const { $setOnInsert: _ignored, ...rest } = update as Update & { $setOnInsert?: unknown };
  return rest;
}

/** The update applied to an upserted document: `$setOnInsert` merged under `$set`. */
export function withOnInsert(update: Update): Update {
  const { $setOnInsert, $set, ...rest } = update as Update & { $setOnInsert?: Record<string, unknown>; $set?: Record<string, unknown> };
  return $setOnInsert || $set ? { ...rest, $set: { ...($setOnInsert ?? {}), ...($set ?? {}) } } : rest;
}

const FAST_UPDATES = new Set(['$set', '$inc', '$unset']);

/**
 * Applies `$set`, `$inc` and `$unset` on plain paths directly; anything else (other
 * operators, overlapping paths, arrays or non-objects on a path, `$inc` of a non-number)
 * goes through mingo's updater, which gives Mongo's results and errors.
 */
export function applyUpdateFast(doc: Doc, update: Update): void {
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
      if (op === '$set') parent[last] = cloneDocument(value);
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
