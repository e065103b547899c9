import { WorkflowSpecification } from '@gensvc/kernel/testing/workflow-specification';
import { supplierJobWorkflow, type SupplierJobInput } from './supplier-job-workflow';

const spec = WorkflowSpecification.for(supplierJobWorkflow);
const ids = { task_id: 'task_1', account_id: 'acc_1' };
const T0 = '2026-01-01T00:00:00.000Z';
const DEADLINE = '2026-01-01T00:10:00.000Z';
const queued: SupplierJobInput = {
  type: 'SupplierJobQueued',
  data: { ...ids, supplier: 'routed', at: T0, model: 'm', capability: 'text.generate', params: {}, deadline_at: DEADLINE },
};
const dispatched: SupplierJobInput = { type: 'SupplierJobDispatched', data: { ...ids, at: T0 } };
const succeeded: SupplierJobInput = { type: 'SupplierJobSucceeded', data: { ...ids, output: { asset_ids: [] }, at: T0 } };
const failed: SupplierJobInput = { type: 'SupplierJobFailed', data: { ...ids, error: { code: 'SUPPLIER_TIMEOUT', message: 'late' }, at: DEADLINE } };
const due = (at: string): SupplierJobInput => ({ type: 'JobDue', data: { task_id: 'task_1', at } });
const stepped = (at: string, next: { inMs: number } | 'wait' | 'done'): SupplierJobInput => ({ type: 'JobStepped', data: { task_id: 'task_1', at, next } });
const task = { task_id: 'task_1' };

describe('supplier job workflow', () => {
  describe('a job falls due', () => {
    it('an open job takes its channel’s next step', () => {
      spec.given([queued]).when(due(T0)).then([{ type: 'StepJob', data: task }]);
      spec.given([queued, dispatched]).when(due('2026-01-01T00:09:59.999Z')).then([{ type: 'StepJob', data: task }]);
    });
    it('a job past its deadline is timed out instead, queued or dispatched', () => {
      spec.given([queued]).when(due(DEADLINE)).then([{ type: 'TimeOutJob', data: task }]);
      spec.given([queued, dispatched]).when(due('2026-01-01T01:00:00.000Z')).then([{ type: 'TimeOutJob', data: task }]);
    });
    it('a finished or unknown job is let go (a redelivery, a timer of a job a callback finished)', () => {
      spec.given([queued, dispatched, succeeded]).when(due(T0)).then([{ type: 'ReleaseJob', data: task }]);
      spec.given([]).when(due(T0)).then([{ type: 'ReleaseJob', data: task }]);
    });
  });

  describe('after a step', () => {
    it('looks again when the channel asked, by the deadline at the latest', () => {
      spec.given([queued, dispatched]).when(stepped(T0, { inMs: 2_000 })).then([{ type: 'LookAgain', data: { ...task, at: '2026-01-01T00:00:02.000Z' } }]);
      spec.given([queued, dispatched]).when(stepped('2026-01-01T00:09:59.000Z', { inMs: 60_000 })).then([{ type: 'LookAgain', data: { ...task, at: DEADLINE } }]);
    });
    it('a job that waits for a callback is still looked at on its deadline', () => {
      spec.given([queued, dispatched]).when(stepped(T0, 'wait')).then([{ type: 'LookAgain', data: { ...task, at: DEADLINE } }]);
      // The channel saw nothing more to do, yet the job did not end (another writer's event is still to be read).
      spec.given([queued]).when(stepped(T0, 'done')).then([{ type: 'LookAgain', data: { ...task, at: DEADLINE } }]);
    });
    it('a job without a deadline (written before jobs had one) is looked at again without a time of its own', () => {
      const old: SupplierJobInput = { type: 'SupplierJobQueued', data: { ...ids, supplier: 'local', at: T0 } };
      spec.given([old]).when(stepped(T0, 'wait')).then([{ type: 'LookAgain', data: { ...task, at: null } }]);
    });
    it('a step that ended the job lets it go once: on the outcome, not again after the step', () => {
      spec.given([queued, dispatched]).when(succeeded).then([{ type: 'ReleaseJob', data: task }]);
      spec.given([queued, dispatched, succeeded]).when(stepped(T0, 'done')).then([]);
    });
    it('the time-out’s failure lets the job go', () => spec.given([queued]).when(failed).then([{ type: 'ReleaseJob', data: task }]));
    it('an event that does not end the job sends nothing by itself', () => spec.given([queued]).when(dispatched).then([]));
  });
});
