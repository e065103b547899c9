import { type RecordedEvent } from '@gensvc/kernel';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import type { SupplierJobEvent } from '../../contracts/supplier-gateway';
import { OpenJobsHandler } from './open-jobs.handler';
import { SUPPLIER_JOBS, SupplierJobsProjection } from './supplier-jobs.projection';

describe('supplier_jobs projection and the open-jobs query', () => {
  const at = '2026-03-01T10:00:00.000Z';
  let readStore: InMemoryReadStore;
  let position = 0n;
  const projection = new SupplierJobsProjection();
  const project = async (taskId: string, ...events: (Omit<SupplierJobEvent, 'data'> & { data?: object })[]) => {
    for (const e of events) {
      position++;
      const recorded = { id: `e${position}`, streamName: `supplierjob-${taskId}`, revision: 0n, position, type: e.type, data: { task_id: taskId, account_id: 'acc_1', at, ...e.data }, metadata: {} };
      await projection.apply(recorded as unknown as RecordedEvent, readStore);
    }
  };

  beforeEach(async () => {
    readStore = new InMemoryReadStore();
    await projection.setup(readStore);
  });
  afterEach(() => readStore.close());

  it('lists the queued and dispatched jobs, not the finished ones', async () => {
    await project('task_q', { type: 'SupplierJobQueued', data: { supplier: 'local' } });
    await project('task_d', { type: 'SupplierJobQueued', data: { supplier: 'acme' } }, { type: 'SupplierJobDispatched' }, { type: 'SupplierCancelChecking' });
    await project('task_s', { type: 'SupplierJobQueued', data: { supplier: 'local' } }, { type: 'SupplierJobDispatched' }, { type: 'SupplierJobSucceeded', data: { output: { asset_ids: [] } } });
    await project('task_c', { type: 'SupplierJobCanceled' });
    expect((await new OpenJobsHandler(readStore).execute()).sort()).toEqual(['task_d', 'task_q']);
    expect(await readStore.collection(SUPPLIER_JOBS).findOne({ _id: 'task_d' })).toMatchObject({ supplier: 'acme', status: 'dispatched', cancel: 'checking' });
  });
});
