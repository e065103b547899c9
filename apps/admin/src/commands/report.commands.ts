import type { MarginReportQuery } from '@gensvc/operations';
import { UsageError, type AdminCommand, type Flags } from '../command';

function optional(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} needs a value`);
  return v;
}

/**
 * `report margin [--from T] [--to T] [--by model|channel]`: revenue (what settled tasks
 * charged), cost (their route's unit_cost × the quote's quantity) and margin per model or
 * channel, over the settlements in [from, to), from the read model `operations.margin`. The
 * read models are brought up to date first (nothing to do while a server runs: it keeps them).
 */
const margin: AdminCommand = {
  words: ['report', 'margin'],
  usage: 'report margin [--from T] [--to T] [--by model|channel]',
  async run(use, flags) {
    const query: MarginReportQuery = { from: optional(flags, 'from'), to: optional(flags, 'to'), by: optional(flags, 'by') as MarginReportQuery['by'] };
    await use.engine.start({ reactors: false });
    return use.marginReport.execute(query);
  },
};

export const REPORT_COMMANDS: AdminCommand[] = [margin];
