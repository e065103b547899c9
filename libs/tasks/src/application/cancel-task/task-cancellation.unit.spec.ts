import type { EventStore } from '@gensvc/event-sourcing';
import type { SupplierGateway } from '@gensvc/suppliers/contracts';
import type { TaskRecord, TaskState } from '../../domain/task';
import type { TaskSettlement } from '../settle-task/task-settlement';
import type { TaskStore } from '../task-store';
import { TaskCancellation, cancellationInputs } from './task-cancellation';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const task = (patch: Partial<TaskRecord> = {}, cancellation: TaskRecord['cancellation']['status'] = 'requested'): TaskState => ({
  kind: 'task',
  task: { task_id: 'task_1', account_id: 'acc_1', status: 'queued', cancellation: { status: cancellation, requested_at: NOW.toISOString(), error_code: null }, ...patch } as TaskRecord,
});

function setup(answer: 'canceled' | 'requested', stored: TaskState = task()) {
  const canceled = task({ status: 'canceled' }, 'confirmed');
  const tasks = {
    load: jest.fn(async () => stored),
    handle: jest.fn(async () => ({ state: canceled, events: [{}], position: 7n })),
    now: () => NOW,
  };
  const gateway = { requestCancel: jest.fn(async () => answer) };
  const settlement = { settle: jest.fn(async () => ({ state: { status: 'settled' }, position: 9n })) };
  const cancellation = new TaskCancellation(tasks as unknown as TaskStore, gateway as unknown as SupplierGateway, settlement as unknown as TaskSettlement, {} as EventStore);
  return { tasks, gateway, settlement, cancellation, canceled };
}

describe('TaskCancellation (the cancellation workflow under the processor)', () => {
  it('a job no supplier holds: asks, confirms the cancellation on the task and settles it, inline', async () => {
    const { cancellation, gateway, tasks, settlement } = setup('canceled');
    const run = await cancellation.start('task_1', async () => task());
    expect(gateway.requestCancel).toHaveBeenCalledWith('task_1');
    expect(tasks.handle).toHaveBeenCalledWith('task_1', { type: 'ConfirmCancellation', data: { task_id: 'task_1' }, metadata: { now: NOW } });
    expect(settlement.settle).toHaveBeenCalledTimes(1);
    expect(run).toEqual({ state: { status: 'canceled', task_id: 'task_1' }, position: 9n });
  });

  it('a job the supplier holds: only asks (its answer arrives as events)', async () => {
    const { cancellation, tasks, settlement } = setup('requested');
    expect((await cancellation.start('task_1', async () => task())).state).toEqual({ status: 'held', task_id: 'task_1' });
    expect(tasks.handle).not.toHaveBeenCalled();
    expect(settlement.settle).not.toHaveBeenCalled();
  });

  it('from the subscription: nothing after a finished inline run; a request the process died on is asked again from the stored task', async () => {
    const { cancellation, gateway } = setup('requested');
    await cancellation.start('task_1', async () => task());
    expect(await cancellation.processor.resume('task_1')).toBeNull();
    expect(gateway.requestCancel).toHaveBeenCalledTimes(1);
    const other = setup('requested', task({ task_id: 'task_2' }));
    await other.cancellation.processor.resume('task_2');
    expect(other.tasks.load).toHaveBeenCalledWith('task_2');
    expect(other.gateway.requestCancel).toHaveBeenCalledWith('task_2');
  });

  it('the task as cancellation inputs', () => {
    expect(cancellationInputs(task({}, 'none'))).toEqual([]);
    expect(cancellationInputs(task({}, 'checking')).map((i) => i.type)).toEqual(['CancellationRequested']);
    expect(cancellationInputs(task({}, 'refused')).map((i) => i.type)).toEqual(['CancellationRequested', 'SupplierAnswered']);
    expect(cancellationInputs(task({ status: 'canceled' }, 'confirmed')).map((i) => i.type)).toEqual(['CancellationRequested', 'TaskCanceled']);
    expect(cancellationInputs(task({ status: 'succeeded' }, 'requested')).map((i) => i.type)).toEqual(['CancellationRequested', 'TaskEnded']);
  });
});
