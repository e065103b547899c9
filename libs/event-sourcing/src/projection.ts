import type { Collection, Doc, IndexSpec, ReadStore } from './read-store/read-store.port';
import { DuplicateKeyError } from './read-store/read-store.port';
import type { DomainEvent, RecordedEvent, RecordedOf } from '@gensvc/kernel';

/** Where a projection writes: the live collections, or fresh ones during a replay. */
export interface ProjectionTarget {
  collection<T extends Doc = Doc>(name: string): Collection<T>;
}

/**
 * A read model built from events. `apply` must be idempotent: an event may be delivered
 * again after a crash (the checkpoint is stored after the documents). `DocumentProjection`
 * gives that for free.
 */
export interface Projection {
  /** Unique, stable name; also the checkpoint's name. */
  readonly name: string;
  /** Collections this projection owns (rebuilt and switched together on replay). */
  readonly collections: readonly string[];
  /** Event types it reads; events of other types only move its checkpoint. */
  readonly handles: readonly string[];
  /** Creates indexes (idempotent). */
  setup?(target: ProjectionTarget): Promise<void>;
  apply(event: RecordedEvent, target: ProjectionTarget): Promise<void>;
}

/** Nest multi-provider token under which contexts register projections. */
export const PROJECTIONS = Symbol('PROJECTIONS');

/** Marks a document with the position of the last event folded into it. */
export type Positioned<T> = T & { _id: string; _pos: number };

/**
 * Projection of one document per entity: `evolve(doc, event)` returns the new document
 * (or null to delete it). Each document records the last applied position, so redelivery
 * is a no-op, and writes are conditional on the version read (no lost update).
 *
 * `E` is the union of the events it reads: `handles` must name their types, and `documentId`
 * and `evolve` receive them typed (the engine delivers only the types in `handles`).
 */
export function documentProjection<T extends Record<string, unknown>, E extends DomainEvent = DomainEvent>(spec: {
  name: string;
  collection: string;
  handles: readonly E['type'][];
  documentId(event: RecordedOf<E>): string | null;
  evolve(doc: T | null, event: RecordedOf<E>): T | null;
  indexes?: Parameters<Collection['createIndex']>[0][];
}): Projection {
  return {
    name: spec.name,
    collections: [spec.collection],
    handles: spec.handles,
    async setup(target) {
      const c = target.collection(spec.collection);
      for (const idx of spec.indexes ?? []) await c.createIndex(idx);
    },
    async apply(recorded, target) {
      // The engine delivers only the types in `handles`, which are E's.
      const event = recorded as RecordedOf<E>;
      const id = spec.documentId(event);
      if (!id) return;
      const c = target.collection<Positioned<T>>(spec.collection);
      const pos = Number(event.position);
      const current = await c.findOne({ _id: id });
      if (current && current._pos >= pos) return;
      const { _id, _pos, ...plain } = (current ?? {}) as Positioned<T>;
      const next = spec.evolve(current ? (plain as unknown as T) : null, event);
      if (next === null) {
        if (current) await c.deleteOne({ _id: id, _pos: current._pos });
        return;
      }
      const doc = { ...next, _id: id, _pos: pos } as Positioned<T>;
      try {
        if (current) await c.replaceOne({ _id: id, _pos: current._pos }, doc);
        else await c.insertOne(doc);
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
    },
  };
}

/** Strips the projection bookkeeping fields from a read-model document. */
export function stripDoc<T extends Record<string, unknown>>(doc: T): Omit<T, '_id' | '_pos'> {
  const { _id, _pos, ...rest } = doc as T & { _id?: unknown; _pos?: unknown };
  return rest;
}

/**
 * For a bulk load (a replay, or projections filling an empty read store): a view of `target`
 * whose `createIndex` creates unique indexes at once (they decide what the load may write) and
 * only records the others; `createDeferred()` then creates them over the loaded rows, which is
 * much faster than keeping them up to date row by row. Every other operation goes to `target`.
 */
export function deferIndexes(target: ProjectionTarget): { target: ProjectionTarget; createDeferred(): Promise<void> } {
  const deferred: { name: string; spec: IndexSpec }[] = [];
  return {
    target: {
      collection<T extends Doc = Doc>(name: string): Collection<T> {
        const c = target.collection<T>(name);
        return new Proxy(c, {
          get(obj, prop) {
            if (prop === 'createIndex') {
              return async (spec: IndexSpec) => {
                if (spec.unique) await obj.createIndex(spec);
                else deferred.push({ name, spec });
              };
            }
            const v = Reflect.get(obj, prop, obj) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(obj) : v;
          },
        });
      },
    },
    async createDeferred() {
      for (const { name, spec } of deferred.splice(0)) await target.collection(name).createIndex(spec);
    },
  };
}

/** A read store view that maps logical collection names to physical ones. */
export function targetOf(store: ReadStore, rename: (logical: string) => string = (n) => n): ProjectionTarget {
  return { collection: (name) => store.collection(rename(name)) };
}

/**
 * Base of a Nest provider that serves a projection built as a value (usually by
 * `documentProjection`): the subclass sets `inner`, decorates itself with `@AsProjection()`
 * and `@Injectable()`, and everything else delegates to `inner`.
 */
export abstract class ProjectionProvider implements Projection {
  protected abstract readonly inner: Projection;
  get name(): string {
    return this.inner.name;
  }
  get collections(): readonly string[] {
    return this.inner.collections;
  }
  get handles(): readonly string[] {
    return this.inner.handles;
  }
  setup(target: ProjectionTarget): Promise<void> {
    return this.inner.setup?.(target) ?? Promise.resolve();
  }
  apply(event: RecordedEvent, target: ProjectionTarget): Promise<void> {
    return this.inner.apply(event, target);
  }
}
