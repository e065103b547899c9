import type { RecordedEvent } from '@gensvc/kernel';
import type { SupplierJobRunner } from './supplier-job-runner';
import { SupplierJobWorker } from './supplier-job-worker.reactor';

describe('SupplierJobWorker', () => {
  const runner = { schedule: jest.fn() };
  const worker = new SupplierJobWorker(runner as unknown as SupplierJobRunner);
  beforeEach(() => runner.schedule.mockClear());

  it.each(['SupplierJobQueued', 'SupplierCancelChecking'])('%s schedules the job of its task', async (type) => {
    await worker.handle({ type, data: { task_id: 'task_1' } } as unknown as RecordedEvent);
    expect(runner.schedule).toHaveBeenCalledWith('task_1');
  });

  it('an event without a task id schedules nothing', async () => {
    await worker.handle({ type: 'SupplierJobQueued', data: {} } as unknown as RecordedEvent);
    expect(runner.schedule).not.toHaveBeenCalled();
  });
});
