import type { RecordedEvent } from '@gensvc/kernel';
import type { SupplierGateway, SupplierJobEvent } from '@gensvc/suppliers/contracts';
import type { TaskRecord, TaskState } from '../../domain/task';
import type { TaskSettlement } from '../settle-task/task-settlement';
import type { TaskStore } from '../task-store';
import { TaskExecutionReactor, commandFor } from './task-execution.reactor';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const AT = '2026-01-01T00:00:03.000Z';
const ev = (type: string, data: Record<string, unknown>) => ({ type, data: { task_id: 'task_1', account_id: 'acc_1', ...data } }) as unknown as RecordedEvent;
const taskState = (patch: Partial<TaskRecord> = {}): TaskState => ({
  kind: 'task',
  task: { task_id: 'task_1', account_id: 'acc_1', status: 'queued', cancellation: { status: 'none', requested_at: null, error_code: null }, ...patch } as TaskRecord,
});

function setup(state: TaskState = taskState()) {
  const tasks = { load: jest.fn(async () => state), handle: jest.fn(async (): Promise<{ state: TaskState; events: unknown[] }> => ({ state, events: [] })), now: () => NOW };
  const gateway = { submit: jest.fn(async () => undefined), };
  const settlement = { settle: jest.fn(async () => ({})) };
  const reactor = new TaskExecutionReactor(tasks as unknown as TaskStore, gateway as unknown as SupplierGateway, settlement as unknown as TaskSettlement);
  return { tasks, gateway, settlement, reactor };
}

describe('TaskExecutionReactor', () => {
  it('neither settles nor cancels: it hears no terminal task event and no cancellation request', () => {
    const { reactor } = setup();
    expect(reactor.handles).not.toEqual(expect.arrayContaining(['TaskSucceeded']));
    expect(reactor.handles).not.toEqual(expect.arrayContaining(['CancellationRequested']));
    expect(reactor.handles).toEqual(expect.arrayContaining(['TaskCreated', 'SupplierJobSucceeded']));
  });

  it('TaskCreated submits the job of a task still queued', async () => {
    const { reactor, gateway } = setup();
    await reactor.handle(ev('TaskCreated', { model: 'm', capability: 'c', params: { prompt: 'x' } }));
    expect(gateway.submit).toHaveBeenCalledWith({ taskId: 'task_1', accountId: 'acc_1', modelId: 'm', capability: 'c', params: { prompt: 'x' } });
  });

  it('TaskCreated of a task already ended (a redelivery) submits nothing', async () => {
    const { reactor, gateway } = setup(taskState({ status: 'canceled' }));
    await reactor.handle(ev('TaskCreated', { model: 'm', capability: 'c', params: {} }));
    expect(gateway.submit).not.toHaveBeenCalled();
  });

  it('a supplier outcome becomes the task command, at the supplier time', async () => {
    const { reactor, tasks } = setup();
    await reactor.handle(ev('SupplierJobFailed', { error: { code: 'SUPPLIER_ERROR', message: 'boom' }, at: AT }));
    expect(tasks.handle).toHaveBeenCalledWith('task_1', {
      type: 'FailTask',
      data: { task_id: 'task_1', error: { code: 'SUPPLIER_ERROR', message: 'boom' } },
      metadata: { now: new Date(AT) },
    });
  });

  it('a supplier outcome that ended the task runs the settlement workflow inline with the state at hand', async () => {
    const ended = taskState({ status: 'succeeded' });
    const { reactor, tasks, settlement } = setup();
    tasks.handle.mockResolvedValueOnce({ state: ended, events: [{ type: 'TaskSucceeded' }] });
    await reactor.handle(ev('SupplierJobSucceeded', { output: { asset_ids: [] }, at: AT }));
    expect(settlement.settle).toHaveBeenCalledWith('task_1', ended);
  });

  it('a repeated outcome (nothing appended) settles nothing here', async () => {
    const { reactor, tasks, settlement } = setup();
    tasks.handle.mockResolvedValueOnce({ state: taskState({ status: 'succeeded' }), events: [] });
    await reactor.handle(ev('SupplierJobSucceeded', { output: { asset_ids: [] }, at: AT }));
    expect(settlement.settle).not.toHaveBeenCalled();
  });

  it('a supplier event for an unknown task changes nothing and does not throw', async () => {
    const { reactor, tasks } = setup({ kind: 'none' });
    await expect(reactor.handle(ev('SupplierJobDispatched', { at: AT }))).resolves.toBeUndefined();
    expect(tasks.handle).toHaveBeenCalledTimes(1);
  });

  describe('commandFor', () => {
    const job = (type: string, data: Record<string, unknown> = {}) => ({ type, data: { task_id: 'task_1', account_id: 'acc_1', at: AT, ...data } }) as unknown as SupplierJobEvent;
    it.each([
      ['SupplierJobQueued', null],
      ['SupplierJobDispatched', 'StartTask'],
      ['SupplierJobCanceled', 'ConfirmCancellation'],
      ['SupplierCancelChecking', 'MarkCancellationChecking'],
      ['SupplierCancelRefused', 'MarkCancellationRefused'],
      ['SupplierCancelUnconfirmed', 'MarkCancellationUnconfirmed'],
    ])('%s → %s', (type, command) => {
      expect(commandFor(job(type), NOW)?.type ?? null).toBe(command);
    });
    it('SupplierJobSucceeded carries the output', () => {
      expect(commandFor(job('SupplierJobSucceeded', { output: { asset_ids: ['ast_1'], text: 'hi' } }), NOW)).toEqual({
        type: 'SucceedTask',
        data: { task_id: 'task_1', output: { asset_ids: ['ast_1'], text: 'hi' } },
        metadata: { now: new Date(AT) },
      });
    });
    it('an unreadable supplier time falls back to now', () => {
      expect(commandFor(job('SupplierJobDispatched', { at: 'later' }), NOW)?.metadata.now).toEqual(NOW);
    });
  });
});
