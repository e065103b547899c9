import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import type { SupplierJobEvent } from '../../contracts/supplier-gateway';
import type { SupplierJobRunner } from '../submit-job/supplier-job-runner';
import { CancelJobHandler } from './cancel-job.handler';

describe('CancelJobHandler', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  const at = '2026-03-01T09:00:00.000Z';
  let events: InMemoryEventStore;
  let runner: { schedule: jest.Mock };
  let handler: CancelJobHandler;
  const cancel = (taskId: string, accountId = '') => handler.execute({ type: 'CancelJob', data: { task_id: taskId, account_id: accountId }, metadata: { now } });
  const given = (taskId: string, history: SupplierJobEvent[]) => events.appendToStream(`supplierjob-${taskId}`, history);
  const types = async (taskId: string) => (await events.readStream(`supplierjob-${taskId}`)).map((e) => e.type);
  const queued = (taskId: string): SupplierJobEvent => ({ type: 'SupplierJobQueued', data: { task_id: taskId, account_id: 'acc_1', supplier: 'local', at } });
  const dispatched = (taskId: string): SupplierJobEvent => ({ type: 'SupplierJobDispatched', data: { task_id: taskId, account_id: 'acc_1', at } });

  beforeEach(() => {
    events = new InMemoryEventStore();
    runner = { schedule: jest.fn() };
    handler = new CancelJobHandler(events, runner as unknown as SupplierJobRunner);
  });
  afterEach(() => events.close());

  it('cancels a job never submitted at once, as a tombstone with the given account', async () => {
    expect(await cancel('task_none', 'acc_9')).toBe('canceled');
    const [tombstone] = await events.readStream<SupplierJobEvent>('supplierjob-task_none');
    expect({ type: tombstone.type, data: tombstone.data }).toEqual({ type: 'SupplierJobCanceled', data: { task_id: 'task_none', account_id: 'acc_9', at: now.toISOString() } });
  });

  it('cancels a queued job at once, asks about a dispatched one, and leaves a finished one', async () => {
    await given('task_q', [queued('task_q')]);
    await given('task_d', [queued('task_d'), dispatched('task_d')]);
    await given('task_s', [queued('task_s'), dispatched('task_s'), { type: 'SupplierJobSucceeded', data: { task_id: 'task_s', account_id: 'acc_1', output: { asset_ids: [] }, at } }]);
    expect(await cancel('task_q')).toBe('canceled');
    expect(await cancel('task_d')).toBe('requested');
    expect(await cancel('task_d')).toBe('requested');
    expect(await cancel('task_s')).toBe('finished');
    expect(await types('task_d')).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierCancelChecking']);
    expect(await types('task_s')).toEqual(['SupplierJobQueued', 'SupplierJobDispatched', 'SupplierJobSucceeded']);
    // The runner hears of what changed: the queued job's end, the dispatched job's check (once).
    expect(runner.schedule.mock.calls).toEqual([['task_q'], ['task_d']]);
  });
});
