import { Money, type Micros } from '@gensvc/kernel';
import type { SupplierJobEvent } from '@gensvc/suppliers/contracts';
import type { TaskEvent } from '@gensvc/tasks/contracts';

/**
 * The margin report (CONTRACT §15): what settled tasks charged (revenue) against what their
 * route cost (the route's `unit_cost` × the quote's quantity; 0 without a `unit_cost`), by
 * model or by supplier channel, over a time window of settlements.
 *
 * Read model: one record per task until it settles (its model and quantity from
 * `TaskCreated`, its channel from `SupplierJobQueued` and, on a provider route, the channel
 * and unit cost from `SupplierJobDispatched`); a settled task that charged adds one task, its
 * charge and its cost to the hour of its settlement for its (model, channel), and its record
 * stays for the edges of a window that do not fall on whole hours. A task that released its
 * funds charged nothing and leaves the model.
 */
export type MarginEvent =
  | Extract<TaskEvent, { type: 'TaskCreated' | 'TaskSettled' }>
  | Extract<SupplierJobEvent, { type: 'SupplierJobQueued' | 'SupplierJobDispatched' }>;

export const MARGIN_EVENT_TYPES: readonly MarginEvent['type'][] = ['TaskCreated', 'SupplierJobQueued', 'SupplierJobDispatched', 'TaskSettled'];

export type MarginKey = 'model' | 'channel';

/** A task as the margin report knows it. */
export interface MarginTask {
  readonly model: string | null;
  /** The quote's quantity in pricing units (1 for tasks created before it was recorded). */
  readonly quantity: number;
  /** The supplier channel that ran it: the provider channel of its route, or its one channel (`local`, a gensvc channel). */
  readonly channel: string | null;
  /** The route's purchase price per pricing unit (CNY), null without one. */
  readonly unit_cost: string | null;
  /** What it charged, once settled. */
  readonly charged: string | null;
  readonly settled_at: string | null;
}

const EMPTY: MarginTask = { model: null, quantity: 1, channel: null, unit_cost: null, charged: null, settled_at: null };

/** The supplier of a routed job until a route takes it (`ROUTED` of the catalogue context). */
const ROUTED_MARKER = '@routes';

/** The record of a task after one more of its events; null once it settled without charging. */
export function evolveMarginTask(doc: MarginTask | null, event: MarginEvent): MarginTask | null {
  const t = doc ?? EMPTY;
  switch (event.type) {
    case 'TaskCreated':
      return { ...t, model: event.data.model, quantity: event.data.quantity ?? 1 };
    case 'SupplierJobQueued':
      return { ...t, model: t.model ?? event.data.model ?? null, channel: t.channel ?? (event.data.supplier === ROUTED_MARKER ? null : event.data.supplier) };
    case 'SupplierJobDispatched':
      return { ...t, channel: event.data.channel ?? t.channel, unit_cost: event.data.channel ? (event.data.unit_cost ?? null) : t.unit_cost };
    case 'TaskSettled':
      if (event.data.settlement_status !== 'settled') return null;
      return { ...t, charged: event.data.charged_amount, settled_at: event.data.at };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

/** What one settled task adds to its hour. */
export interface MarginContribution {
  readonly hour: string;
  readonly model: string;
  readonly channel: string;
  readonly revenue: Micros;
  readonly cost: Micros;
}

/** Names used when an old task lacks its model or channel. */
export const UNKNOWN = '(unknown)';

/** A settled task's revenue and cost, or null before it settled. */
export function contributionOf(t: MarginTask): MarginContribution | null {
  if (t.charged === null || t.settled_at === null) return null;
  return {
    hour: hourOf(t.settled_at),
    model: t.model ?? UNKNOWN,
    channel: t.channel ?? UNKNOWN,
    revenue: Money.parse(t.charged),
    cost: t.unit_cost === null ? 0n : Money.multiply(Money.parse(t.unit_cost), t.quantity),
  };
}

/** The start of the UTC hour of an RFC 3339 time, as `toISOString` writes it. */
export function hourOf(iso: string): string {
  const d = new Date(iso);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

/** One hour of one (model, channel): the sums of the tasks settled in it. */
export interface MarginHour {
  readonly hour: string;
  readonly model: string;
  readonly channel: string;
  readonly tasks: number;
  readonly revenue: string;
  readonly cost: string;
}

export const hourKey = (c: Pick<MarginContribution, 'hour' | 'model' | 'channel'>): string => `${c.hour}|${c.model}|${c.channel}`;

export function addToHour(hour: MarginHour | null, c: MarginContribution): MarginHour {
  return {
    hour: c.hour,
    model: c.model,
    channel: c.channel,
    tasks: (hour?.tasks ?? 0) + 1,
    revenue: Money.format(Money.parse(hour?.revenue ?? '0') + c.revenue),
    cost: Money.format(Money.parse(hour?.cost ?? '0') + c.cost),
  };
}

/**
 * Which parts of the read model answer a window [from, to): the whole hours inside it from
 * the hourly sums, the partial hours at its edges from the settled tasks themselves. A window
 * without `from` starts with the first settlement.
 */
export function reportWindow(from: string | null, to: string): { hours: { from: string | null; to: string } | null; tasks: { from: string; to: string }[] } {
  const firstWhole = from === null ? null : from === hourOf(from) ? from : new Date(Date.parse(hourOf(from)) + 3_600_000).toISOString();
  const lastWhole = hourOf(to);
  if (from !== null && firstWhole! > lastWhole) return { hours: null, tasks: from < to ? [{ from, to }] : [] };
  const tasks: { from: string; to: string }[] = [];
  if (from !== null && from < firstWhole!) tasks.push({ from, to: firstWhole! });
  if (lastWhole < to) tasks.push({ from: lastWhole, to });
  return { hours: firstWhole === lastWhole ? null : { from: firstWhole, to: lastWhole }, tasks };
}

/** One line of the report. */
export interface MarginRow {
  readonly key: string;
  readonly tasks: number;
  readonly revenue: string;
  readonly cost: string;
  /** revenue − cost; negative when a route cost more than the task charged. */
  readonly margin: string;
}

export interface MarginReport {
  readonly rows: MarginRow[];
  readonly total: Omit<MarginRow, 'key'>;
}

/** Sums the parts (hourly sums and single tasks) by model or by channel, rows ordered by key. */
export function marginReport(by: MarginKey, parts: readonly { model: string; channel: string; tasks: number; revenue: Micros; cost: Micros }[]): MarginReport {
  const sums = new Map<string, { tasks: number; revenue: Micros; cost: Micros }>();
  const total = { tasks: 0, revenue: 0n, cost: 0n };
  for (const p of parts) {
    const key = by === 'model' ? p.model : p.channel;
    const s = sums.get(key) ?? { tasks: 0, revenue: 0n, cost: 0n };
    sums.set(key, { tasks: s.tasks + p.tasks, revenue: s.revenue + p.revenue, cost: s.cost + p.cost });
    total.tasks += p.tasks;
    total.revenue += p.revenue;
    total.cost += p.cost;
  }
  const line = (s: { tasks: number; revenue: Micros; cost: Micros }) => ({
    tasks: s.tasks,
    revenue: Money.format(s.revenue),
    cost: Money.format(s.cost),
    margin: Money.formatSigned(s.revenue - s.cost),
  });
  const rows = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, s]) => ({ key, ...line(s) }));
  return { rows, total: line(total) };
}
