import { addToHour, contributionOf, evolveMarginTask, marginReport, reportWindow, type MarginEvent, type MarginTask } from './margin';

const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;
const created = (task: string, model: string, quantity?: number): MarginEvent => ({
  type: 'TaskCreated',
  data: {
    task_id: task,
    bill_id: `bill_${task}`,
    account_id: 'acc_1',
    connection_id: 'key_1',
    quote_id: 'qt_1',
    model,
    resolved_model: model,
    capability: 'image.generate',
    modality: 'image',
    title: null,
    price_version: 'pv-1',
    ...(quantity !== undefined ? { quantity, unit: 'image' } : {}),
    currency: 'CNY',
    estimated_amount: '0.400000',
    max_amount: '0.400000',
    params: {},
    asset_ids: [],
    voice_id: null,
    created_at: at('10:00'),
  },
});
const queued = (task: string, supplier: string): MarginEvent => ({ type: 'SupplierJobQueued', data: { task_id: task, account_id: 'acc_1', supplier, at: at('10:00') } });
const dispatched = (task: string, route?: { channel: string; unit_cost?: string }): MarginEvent => ({
  type: 'SupplierJobDispatched',
  data: { task_id: task, account_id: 'acc_1', at: at('10:00'), ...(route ? { channel: route.channel, route: 0, supplier_model: 'acme/img', ...(route.unit_cost ? { unit_cost: route.unit_cost } : {}) } : {}) },
});
const settled = (task: string, status: 'settled' | 'released', charged: string, when = at('10:30')): MarginEvent => ({
  type: 'TaskSettled',
  data: { task_id: task, account_id: 'acc_1', at: when, settlement_status: status, charged_amount: charged, released_amount: status === 'settled' ? '0.000000' : charged },
});
const fold = (events: MarginEvent[]) => events.reduce<MarginTask | null>(evolveMarginTask, null);

describe('margin read model', () => {
  it('costs a task on a provider route at the route\'s unit cost times the quote\'s quantity', () => {
    const task = fold([created('t1', 'flux', 4), queued('t1', '@routes'), dispatched('t1', { channel: 'replicate', unit_cost: '0.021000' }), settled('t1', 'settled', '0.400000')]);
    expect(task).toEqual({ model: 'flux', quantity: 4, channel: 'replicate', unit_cost: '0.021000', charged: '0.400000', settled_at: at('10:30') });
    expect(contributionOf(task!)).toEqual({ hour: at('10:00'), model: 'flux', channel: 'replicate', revenue: 400_000n, cost: 84_000n });
  });

  it('costs nothing on the local supplier (or a route without unit cost), named by the job\'s channel', () => {
    const local = fold([created('t2', 'image-studio-v2', 2), queued('t2', 'local'), dispatched('t2'), settled('t2', 'settled', '0.160000')]);
    expect(contributionOf(local!)).toMatchObject({ channel: 'local', revenue: 160_000n, cost: 0n });
    const free = fold([created('t3', 'flux', 1), queued('t3', '@routes'), dispatched('t3', { channel: 'fal' }), settled('t3', 'settled', '0.100000')]);
    expect(contributionOf(free!)).toMatchObject({ channel: 'fal', cost: 0n });
  });

  it('counts one unit for a task created before the quantity was recorded', () => {
    const old = fold([created('t4', 'flux'), queued('t4', '@routes'), dispatched('t4', { channel: 'replicate', unit_cost: '0.021000' }), settled('t4', 'settled', '0.100000')]);
    expect(contributionOf(old!)?.cost).toBe(21_000n);
  });

  it('drops a task that released its funds, and adds nothing before settlement', () => {
    expect(fold([created('t5', 'flux', 1), queued('t5', '@routes'), settled('t5', 'released', '0.100000')])).toBeNull();
    expect(contributionOf(fold([created('t6', 'flux', 1), queued('t6', 'local')])!)).toBeNull();
  });

  it('sums an hour of one model and channel', () => {
    const a = contributionOf(fold([created('a', 'flux', 1), queued('a', 'local'), settled('a', 'settled', '0.100000', at('10:05'))])!)!;
    const b = contributionOf(fold([created('b', 'flux', 3), queued('b', '@routes'), dispatched('b', { channel: 'local', unit_cost: '0.010000' }), settled('b', 'settled', '0.300000', at('10:59'))])!)!;
    expect(addToHour(addToHour(null, a), b)).toEqual({ hour: at('10:00'), model: 'flux', channel: 'local', tasks: 2, revenue: '0.400000', cost: '0.030000' });
  });
});

describe('margin report', () => {
  it('reads whole hours from the hourly sums and the partial hours at the edges from the tasks', () => {
    expect(reportWindow(at('10:30'), at('13:15'))).toEqual({ hours: { from: at('11:00'), to: at('13:00') }, tasks: [{ from: at('10:30'), to: at('11:00') }, { from: at('13:00'), to: at('13:15') }] });
    expect(reportWindow(at('10:00'), at('12:00'))).toEqual({ hours: { from: at('10:00'), to: at('12:00') }, tasks: [] });
    expect(reportWindow(at('10:10'), at('10:50'))).toEqual({ hours: null, tasks: [{ from: at('10:10'), to: at('10:50') }] });
    expect(reportWindow(at('10:30'), at('11:15'))).toEqual({ hours: null, tasks: [{ from: at('10:30'), to: at('11:00') }, { from: at('11:00'), to: at('11:15') }] });
    expect(reportWindow(null, at('11:15'))).toEqual({ hours: { from: null, to: at('11:00') }, tasks: [{ from: at('11:00'), to: at('11:15') }] });
  });

  it('sums by model or by channel, with a margin that may be negative', () => {
    const parts = [
      { model: 'flux', channel: 'replicate', tasks: 2, revenue: 400_000n, cost: 100_000n },
      { model: 'flux', channel: 'fal', tasks: 1, revenue: 100_000n, cost: 150_000n },
      { model: 'text-writer-lite', channel: 'local', tasks: 3, revenue: 60_000n, cost: 0n },
    ];
    expect(marginReport('model', parts)).toEqual({
      rows: [
        { key: 'flux', tasks: 3, revenue: '0.500000', cost: '0.250000', margin: '0.250000' },
        { key: 'text-writer-lite', tasks: 3, revenue: '0.060000', cost: '0.000000', margin: '0.060000' },
      ],
      total: { tasks: 6, revenue: '0.560000', cost: '0.250000', margin: '0.310000' },
    });
    expect(marginReport('channel', parts).rows).toEqual([
      { key: 'fal', tasks: 1, revenue: '0.100000', cost: '0.150000', margin: '-0.050000' },
      { key: 'local', tasks: 3, revenue: '0.060000', cost: '0.000000', margin: '0.060000' },
      { key: 'replicate', tasks: 2, revenue: '0.400000', cost: '0.100000', margin: '0.300000' },
    ]);
    expect(marginReport('model', [])).toEqual({ rows: [], total: { tasks: 0, revenue: '0.000000', cost: '0.000000', margin: '0.000000' } });
  });
});
