import type { Micros } from '@gensvc/kernel';

export type ReservationView =
  | { readonly status: 'open'; readonly taskId: string; readonly amount: Micros }
  | { readonly status: 'closed'; readonly taskId: string | null; readonly amount: Micros; readonly charged: Micros; readonly released: Micros };

interface Entry {
  readonly taskId: string | null;
  readonly amount: Micros;
  /** Version that opened (or voided) it. */
  readonly opened: number;
  /** Version that closed it, null while open. Set once. */
  closed: number | null;
  charged: Micros;
  released: Micros;
}

interface Shared {
  readonly entries: Map<string, Entry>;
  head: number;
}

/**
 * Every reservation id a wallet has seen, as an immutable value: each `open`/`close`/`void`
 * returns a new `Reservations` and leaves the old one unchanged. Versions share one table:
 * an entry records the versions that opened and closed it, so extending the newest version
 * costs O(1); changing an older version copies the table first. (A wallet folds thousands of
 * reservations; copying a map per event would make each command O(n).)
 */
export class Reservations {
  private constructor(
    private readonly shared: Shared,
    private readonly version: number,
  ) {}

  static empty(): Reservations {
    return new Reservations({ entries: new Map(), head: 0 }, 0);
  }

  get(id: string): ReservationView | undefined {
    const e = this.shared.entries.get(id);
    if (!e || e.opened > this.version) return undefined;
    if (e.closed !== null && e.closed <= this.version) {
      return { status: 'closed', taskId: e.taskId, amount: e.amount, charged: e.charged, released: e.released };
    }
    return { status: 'open', taskId: e.taskId as string, amount: e.amount };
  }

  /** Open reservations at this version (for checks and tests; O(n)). */
  *open(): IterableIterator<[string, { taskId: string; amount: Micros }]> {
    for (const [id, e] of this.shared.entries) {
      if (e.opened <= this.version && (e.closed === null || e.closed > this.version)) yield [id, { taskId: e.taskId as string, amount: e.amount }];
    }
  }

  openReservation(id: string, taskId: string, amount: Micros): Reservations {
    if (this.get(id)) throw new Error(`reservation ${id} exists`);
    const { shared, version } = this.writable();
    shared.entries.set(id, { taskId, amount, opened: version, closed: null, charged: 0n, released: 0n });
    return new Reservations(shared, version);
  }

  close(id: string, charged: Micros, released: Micros): Reservations {
    const current = this.get(id);
    if (current?.status !== 'open') throw new Error(`reservation ${id} is not open`);
    const { shared, version } = this.writable();
    const e = shared.entries.get(id)!;
    e.closed = version;
    e.charged = charged;
    e.released = released;
    return new Reservations(shared, version);
  }

  /** Closes an id that was never reserved. */
  void(id: string): Reservations {
    if (this.get(id)) throw new Error(`reservation ${id} exists`);
    const { shared, version } = this.writable();
    shared.entries.set(id, { taskId: null, amount: 0n, opened: version, closed: version, charged: 0n, released: 0n });
    return new Reservations(shared, version);
  }

  /** The table and the version of the next value: shared when this is the newest version. */
  private writable(): { shared: Shared; version: number } {
    const next = this.version + 1;
    if (this.shared.head === this.version) {
      this.shared.head = next;
      return { shared: this.shared, version: next };
    }
    const entries = new Map<string, Entry>();
    for (const [id, e] of this.shared.entries) {
      if (e.opened > this.version) continue;
      const closedHere = e.closed !== null && e.closed <= this.version;
      entries.set(id, {
        taskId: e.taskId,
        amount: e.amount,
        opened: e.opened,
        closed: closedHere ? e.closed : null,
        charged: closedHere ? e.charged : 0n,
        released: closedHere ? e.released : 0n,
      });
    }
    return { shared: { entries, head: next }, version: next };
  }
}
