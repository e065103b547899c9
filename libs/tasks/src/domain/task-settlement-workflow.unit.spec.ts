import { WorkflowSpecification } from '@gensvc/kernel/testing/workflow-specification';
import { taskSettlementWorkflow, type SettlementInput } from './task-settlement-workflow';

const spec = WorkflowSpecification.for(taskSettlementWorkflow);

const created: SettlementInput = { type: 'TaskCreated', data: { task_id: 'task_1', account_id: 'acc_1', estimated_amount: '0.020000' } };
const succeeded: SettlementInput = { type: 'TaskSucceeded', data: { task_id: 'task_1' } };
const failed: SettlementInput = { type: 'TaskFailed', data: { task_id: 'task_1' } };
const canceled: SettlementInput = { type: 'TaskCanceled', data: { task_id: 'task_1' } };
const closed = (charged: bigint, released: bigint): SettlementInput => ({ type: 'ReservationClosed', data: { task_id: 'task_1', charged, released } });
const settled: SettlementInput = { type: 'TaskSettled', data: { task_id: 'task_1' } };

describe('task settlement workflow', () => {
  it('a succeeded task captures its estimated amount', () =>
    spec.given([created]).when(succeeded).then([{ type: 'CaptureFunds', data: { account_id: 'acc_1', reservation_id: 'task_1', amount: 20_000n } }]));

  it.each([
    ['failed', failed],
    ['canceled', canceled],
  ])('a %s task releases the whole reservation', (_name, input) =>
    spec.given([created]).when(input).then([{ type: 'ReleaseFunds', data: { account_id: 'acc_1', reservation_id: 'task_1' } }]));

  it("a capture's outcome is recorded on the task as settled", () =>
    spec
      .given([created, succeeded])
      .when(closed(20_000n, 10_000n))
      .then([{ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.010000' } }]));

  it("a release's outcome is recorded on the task as released", () =>
    spec
      .given([created, canceled])
      .when(closed(0n, 30_000n))
      .then([{ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'released', charged_amount: '0.000000', released_amount: '0.030000' } }]));

  it('a settled task sends nothing more (a redelivered terminal event settles once)', () => {
    spec.given([created, succeeded, settled]).when(succeeded).then([]);
    spec.given([created, succeeded, closed(1n, 2n), settled]).when(closed(1n, 2n)).then([]);
  });

  it('a running task is not settled', () => {
    spec.given([]).when(created).then([]);
    spec.given([created]).when(closed(0n, 0n)).then([]);
  });

  it('only the first outcome of a task counts (a late failure after a success)', () =>
    spec.given([created, succeeded]).when(failed).then([{ type: 'CaptureFunds', data: { account_id: 'acc_1', reservation_id: 'task_1', amount: 20_000n } }]));

  it('crash between the wallet and the task: resuming from the stored events captures again (idempotent) and records it', () => {
    // Stored: TaskCreated, TaskSucceeded (the capture happened, TaskSettled did not).
    spec.given([created]).when(succeeded).then([{ type: 'CaptureFunds', data: { account_id: 'acc_1', reservation_id: 'task_1', amount: 20_000n } }]);
    spec
      .given([created, succeeded])
      .when(closed(20_000n, 0n))
      .then([{ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.000000' } }]);
  });
});
