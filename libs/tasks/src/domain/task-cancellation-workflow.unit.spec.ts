import { WorkflowSpecification } from '@gensvc/kernel/testing/workflow-specification';
import { taskCancellationWorkflow, type CancellationInput } from './task-cancellation-workflow';

const spec = WorkflowSpecification.for(taskCancellationWorkflow);

const requested: CancellationInput = { type: 'CancellationRequested', data: { task_id: 'task_1' } };
const answered = (canceled: boolean): CancellationInput => ({ type: 'SupplierAnswered', data: { task_id: 'task_1', canceled } });
const canceled: CancellationInput = { type: 'TaskCanceled', data: { task_id: 'task_1' } };
const ended: CancellationInput = { type: 'TaskEnded', data: { task_id: 'task_1' } };

describe('task cancellation workflow', () => {
  it('a requested cancellation asks the supplier', () => spec.given([]).when(requested).then([{ type: 'AskSupplierToCancel', data: { task_id: 'task_1' } }]));

  it('a job no supplier holds is canceled at once: the cancellation is confirmed on the task', () =>
    spec.given([requested]).when(answered(true)).then([{ type: 'ConfirmCancellation', data: { task_id: 'task_1' } }]));

  it('a held job waits for the supplier: nothing more now', () => spec.given([requested]).when(answered(false)).then([]));

  it('a canceled task is settled (the reservation goes back with the answer)', () =>
    spec.given([requested, answered(true)]).when(canceled).then([{ type: 'SettleTask', data: { task_id: 'task_1' } }]));

  it('a task that ended otherwise needs nothing, whatever comes after', () => {
    spec.given([requested]).when(ended).then([]);
    spec.given([requested, ended]).when(answered(true)).then([]);
  });

  it('resumed from the task stream: a pending request asks again (idempotent), a canceled task settles again (a no-op when settled)', () => {
    spec.given([]).when(requested).then([{ type: 'AskSupplierToCancel', data: { task_id: 'task_1' } }]);
    spec.given([requested]).when(canceled).then([{ type: 'SettleTask', data: { task_id: 'task_1' } }]);
  });

  it('a second answer after the task was canceled confirms nothing more', () => spec.given([requested, canceled]).when(answered(true)).then([]));
});
