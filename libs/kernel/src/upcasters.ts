import type { DomainEvent } from './event';

// Upcasters declare the old shape they accept; stored data is untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Upcaster = (data: any) => unknown;

/**
 * Event schema evolution. Each event type has a current schema version; an upcaster
 * lifts `data` of version n to version n+1. Reading always yields the current shape.
 */
export class EventSchemas {
  private readonly current = new Map<string, number>();
  private readonly upcasters = new Map<string, Upcaster>();

  /** Declares the current version of a type (default 1). */
  define(type: string, version: number): this {
    this.current.set(type, version);
    return this;
  }

  /** Registers the upcaster from `fromVersion` to `fromVersion + 1`. */
  upcast(type: string, fromVersion: number, fn: Upcaster): this {
    this.upcasters.set(`${type}@${fromVersion}`, fn);
    const cur = this.current.get(type) ?? 1;
    if (cur < fromVersion + 1) this.current.set(type, fromVersion + 1);
    return this;
  }

  currentVersion(type: string): number {
    return this.current.get(type) ?? 1;
  }

  /** Lifts stored data to the current version of its type. */
  lift<E extends DomainEvent>(type: string, version: number, data: unknown): { data: E['data']; version: number } {
    let v = version;
    let d = data;
    const target = this.currentVersion(type);
    while (v < target) {
      const fn = this.upcasters.get(`${type}@${v}`);
      if (!fn) throw new Error(`no upcaster for ${type} from schema version ${v}`);
      d = fn(d);
      v += 1;
    }
    return { data: d as E['data'], version: v };
  }
}

/** The process-wide registry; contexts register their versions and upcasters at import time. */
export const eventSchemas = new EventSchemas();
