import type { EventStore } from '@gensvc/event-sourcing';
import type { WalletCommands } from '@gensvc/wallet/contracts';
import type { TaskRecord, TaskState } from '../../domain/task';
import type { TaskStore } from '../task-store';
import { TaskSettlement, settlementInputs } from './task-settlement';

const record = (patch: Partial<TaskRecord>): TaskState => ({
  kind: 'task',
  task: { task_id: 'task_1', account_id: 'acc_1', estimated_amount: '0.020000', max_amount: '0.030000', status: 'succeeded', settlement_status: 'reserved', ...patch } as TaskRecord,
});

function setup() {
  const wallet = {
    capture: jest.fn(async () => ({ charged: 20_000n, released: 10_000n, position: 5n })),
    release: jest.fn(async () => ({ charged: 0n, released: 30_000n, position: 5n })),
  };
  const tasks = { load: jest.fn(), handle: jest.fn(async () => ({ state: { kind: 'none' }, events: [], position: 6n })), now: () => new Date('2026-01-01T00:00:00Z') };
  return { wallet, tasks, settlement: new TaskSettlement(tasks as unknown as TaskStore, wallet as unknown as WalletCommands, {} as EventStore) };
}

describe('TaskSettlement (the settlement workflow under the processor)', () => {
  it('a succeeded task: captures the estimated amount, then records the outcome on the task', async () => {
    const { wallet, tasks, settlement } = setup();
    expect(await settlement.settle('task_1', record({ status: 'succeeded' }))).toEqual({ state: { status: 'settled' }, position: 6n });
    expect(wallet.capture).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'task_1', amount: 20_000n });
    expect(tasks.handle).toHaveBeenCalledWith('task_1', {
      type: 'SettleTask',
      data: { task_id: 'task_1', settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.010000' },
      metadata: { now: new Date('2026-01-01T00:00:00Z') },
    });
    expect(tasks.load).not.toHaveBeenCalled();
  });

  it('a canceled task: releases everything', async () => {
    const { wallet, tasks, settlement } = setup();
    await settlement.settle('task_1', record({ status: 'canceled' }));
    expect(wallet.release).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'task_1' });
    expect((tasks.handle.mock.calls as unknown as [string, unknown][])[0][1]).toMatchObject({ data: { settlement_status: 'released', charged_amount: '0.000000', released_amount: '0.030000' } });
  });

  it('a settled or running task, or no task: nothing', async () => {
    const { wallet, tasks, settlement } = setup();
    await settlement.settle('task_1', record({ status: 'succeeded', settlement_status: 'settled' }));
    await settlement.settle('task_1', record({ status: 'running' }));
    await settlement.settle('task_1', { kind: 'none' });
    expect(wallet.capture).not.toHaveBeenCalled();
    expect(wallet.release).not.toHaveBeenCalled();
    expect(tasks.handle).not.toHaveBeenCalled();
  });

  it('from the subscription: nothing when an inline run settled the task, the stored task otherwise', async () => {
    const { wallet, tasks, settlement } = setup();
    await settlement.settle('task_1', record({ status: 'failed' }));
    expect(await settlement.processor.resume('task_1')).toBeNull();
    expect(tasks.load).not.toHaveBeenCalled();
    tasks.load.mockResolvedValueOnce(record({ task_id: 'task_2', status: 'failed' }));
    await settlement.processor.resume('task_2');
    expect(tasks.load).toHaveBeenCalledWith('task_2');
    expect(wallet.release).toHaveBeenLastCalledWith({ accountId: 'acc_1', reservationId: 'task_2' });
  });

  it("the task's state as inputs", () => {
    expect(settlementInputs(record({ status: 'failed', settlement_status: 'released' })).map((i) => i.type)).toEqual(['TaskCreated', 'TaskFailed', 'TaskSettled']);
  });
});
