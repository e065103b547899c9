import type { Filter, Update } from './read-store.port';

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
