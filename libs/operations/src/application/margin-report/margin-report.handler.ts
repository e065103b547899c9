import { Injectable } from '@nestjs/common';
import { AppError, Clock, Money } from '@gensvc/kernel';
import { ReadStore } from '@gensvc/event-sourcing';
import { contributionOf, marginReport, reportWindow, type MarginKey, type MarginRow } from '../../domain/margin';
import { MARGIN_HOURS, MARGIN_TASKS, taskOf, type MarginHourDoc, type MarginTaskDoc } from './margin.projection';

export interface MarginReportQuery {
  /** RFC 3339; from the first settlement when absent. */
  readonly from?: string;
  /** RFC 3339; now when absent. */
  readonly to?: string;
  readonly by?: MarginKey;
}

/** `admin report margin`: `{from, to, by, rows, total}` over the settlements in [from, to). */
export interface MarginReportAnswer {
  readonly from: string | null;
  readonly to: string;
  readonly by: MarginKey;
  readonly rows: MarginRow[];
  readonly total: Omit<MarginRow, 'key'>;
}

function time(name: string, value: string): string {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) throw new AppError('VALIDATION_ERROR', `--${name}: not an RFC 3339 time (like 2026-11-01T00:00:00Z, or a date 2026-11-01)`);
  return new Date(ms).toISOString();
}

/**
 * The margin of settled tasks by model or channel: whole hours from the hourly sums, the
 * partial hours at the window's edges from the settled tasks (both from the read model
 * `operations.margin`, never from the events).
 */
@Injectable()
export class MarginReportHandler {
  constructor(
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
  ) {}

  async execute(query: MarginReportQuery): Promise<MarginReportAnswer> {
    const by = query.by ?? 'model';
    if (by !== 'model' && by !== 'channel') throw new AppError('VALIDATION_ERROR', '--by: must be model or channel');
    const from = query.from === undefined ? null : time('from', query.from);
    const to = query.to === undefined ? this.clock.now().toISOString() : time('to', query.to);
    if (from !== null && from >= to) throw new AppError('VALIDATION_ERROR', `--from (${from}) must be before --to (${to})`);
    const window = reportWindow(from, to);
    const parts: { model: string; channel: string; tasks: number; revenue: bigint; cost: bigint }[] = [];
    if (window.hours) {
      const range = window.hours.from === null ? { $lt: window.hours.to } : { $gte: window.hours.from, $lt: window.hours.to };
      for (const h of await this.readStore.collection<MarginHourDoc>(MARGIN_HOURS).find({ hour: range })) {
        parts.push({ model: h.model, channel: h.channel, tasks: h.tasks, revenue: Money.parse(h.revenue), cost: Money.parse(h.cost) });
      }
    }
    for (const edge of window.tasks) {
      for (const t of await this.readStore.collection<MarginTaskDoc>(MARGIN_TASKS).find({ settled_at: { $gte: edge.from, $lt: edge.to } })) {
        const c = contributionOf(taskOf(t));
        if (c) parts.push({ model: c.model, channel: c.channel, tasks: 1, revenue: c.revenue, cost: c.cost });
      }
    }
    return { from, to, by, ...marginReport(by, parts) };
  }
}
