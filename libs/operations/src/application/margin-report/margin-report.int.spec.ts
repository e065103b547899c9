import { FixedClock, type RecordedEvent } from '@gensvc/kernel';
import { targetOf } from '@gensvc/event-sourcing';
import { SqliteReadStore } from '@gensvc/storage';
import type { MarginEvent } from '../../domain/margin';
import { marginProjection } from './margin.projection';
import { MarginReportHandler, type MarginReportQuery } from './margin-report.handler';

const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;

/** The events of one task, as the tasks and suppliers contexts record them. */
function taskEvents(task: string, o: { model: string; quantity: number; supplier: string; route?: { channel: string; unit_cost?: string }; charged: string | null; settledAt: string }): MarginEvent[] {
  return [
    {
      type: 'TaskCreated',
      data: {
        task_id: task,
        bill_id: `bill_${task}`,
        account_id: 'acc_1',
        connection_id: 'key_1',
        quote_id: `qt_${task}`,
        model: o.model,
        resolved_model: o.model,
        capability: 'image.generate',
        modality: 'image',
        title: null,
        price_version: 'pv-1',
        quantity: o.quantity,
        unit: 'image',
        currency: 'CNY',
        estimated_amount: o.charged ?? '0.100000',
        max_amount: o.charged ?? '0.100000',
        params: {},
        asset_ids: [],
        voice_id: null,
        created_at: at('09:00'),
      },
    },
    { type: 'SupplierJobQueued', data: { task_id: task, account_id: 'acc_1', supplier: o.supplier, at: at('09:00') } },
    { type: 'SupplierJobDispatched', data: { task_id: task, account_id: 'acc_1', at: at('09:00'), ...(o.route ? { channel: o.route.channel, route: 0, supplier_model: 'm', unit_cost: o.route.unit_cost } : {}) } },
    {
      type: 'TaskSettled',
      data: { task_id: task, account_id: 'acc_1', at: o.settledAt, settlement_status: o.charged ? 'settled' : 'released', charged_amount: o.charged ?? '0.000000', released_amount: o.charged ? '0.000000' : '0.100000' },
    },
  ];
}

describe('the margin report', () => {
  let store: SqliteReadStore;
  let position = 0n;
  const recorded = (e: MarginEvent): RecordedEvent => ({ ...e, id: `e${++position}`, streamName: `x-${e.data.task_id}`, revision: 0n, position, metadata: { schemaVersion: 1, occurredAt: at('09:00') } }) as RecordedEvent;
  const apply = async (events: RecordedEvent[]) => {
    for (const e of events) await marginProjection.apply(e, targetOf(store));
  };
  /** `by` loosely typed: the CLI passes what the operator typed. */
  const report = (q: { from?: string; to?: string; by?: string }) => new MarginReportHandler(store, new FixedClock(new Date(at('23:00')))).execute(q as MarginReportQuery);

  beforeEach(async () => {
    store = SqliteReadStore.open(':memory:');
    await marginProjection.setup!(targetOf(store));
    const events = [
      ...taskEvents('t1', { model: 'flux', quantity: 4, supplier: '@routes', route: { channel: 'replicate', unit_cost: '0.021000' }, charged: '0.400000', settledAt: at('10:15') }),
      ...taskEvents('t2', { model: 'flux', quantity: 1, supplier: '@routes', route: { channel: 'fal', unit_cost: '0.150000' }, charged: '0.100000', settledAt: at('11:30') }),
      ...taskEvents('t3', { model: 'text-writer-lite', quantity: 1, supplier: 'local', charged: '0.020000', settledAt: at('12:45') }),
      ...taskEvents('t4', { model: 'flux', quantity: 2, supplier: '@routes', route: { channel: 'replicate', unit_cost: '0.021000' }, charged: null, settledAt: at('11:00') }),
    ].map(recorded);
    await apply(events);
  });
  afterEach(() => store.close());

  it('sums every settled task by model, from the first settlement to now', async () => {
    expect(await report({})).toEqual({
      from: null,
      to: at('23:00'),
      by: 'model',
      rows: [
        { key: 'flux', tasks: 2, revenue: '0.500000', cost: '0.234000', margin: '0.266000' },
        { key: 'text-writer-lite', tasks: 1, revenue: '0.020000', cost: '0.000000', margin: '0.020000' },
      ],
      total: { tasks: 3, revenue: '0.520000', cost: '0.234000', margin: '0.286000' },
    });
  });

  it('sums by the channel that ran each task; a released task counts nowhere', async () => {
    expect((await report({ by: 'channel' })).rows).toEqual([
      { key: 'fal', tasks: 1, revenue: '0.100000', cost: '0.150000', margin: '-0.050000' },
      { key: 'local', tasks: 1, revenue: '0.020000', cost: '0.000000', margin: '0.020000' },
      { key: 'replicate', tasks: 1, revenue: '0.400000', cost: '0.084000', margin: '0.316000' },
    ]);
  });

  it('takes the settlements of a window, to the millisecond at its edges', async () => {
    expect((await report({ from: at('10:16'), to: at('12:45') })).total).toEqual({ tasks: 1, revenue: '0.100000', cost: '0.150000', margin: '-0.050000' });
    expect((await report({ from: at('10:15'), to: '2026-11-20T12:45:00.001Z' })).total.tasks).toBe(3);
    expect((await report({ from: at('11:00'), to: at('12:00') })).rows.map((r) => r.key)).toEqual(['flux']);
    expect((await report({ from: '2026-11-20T13:00:00Z', by: 'channel' })).rows).toEqual([]);
    expect((await report({ to: '2026-11-20' })).rows).toEqual([]);
  });

  it('applies an event delivered again once', async () => {
    const again = taskEvents('t1', { model: 'flux', quantity: 4, supplier: '@routes', route: { channel: 'replicate', unit_cost: '0.021000' }, charged: '0.400000', settledAt: at('10:15') });
    // The same stored events (same positions) once more, as after a crash before the checkpoint.
    await apply(again.map((e, i) => ({ ...recorded(e), position: BigInt(i + 1) })));
    expect((await report({})).total.tasks).toBe(3);
  });

  it('refuses a window it cannot read', async () => {
    await expect(report({ from: 'yesterday' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(report({ from: at('12:00'), to: at('11:00') })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(report({ by: 'account' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
