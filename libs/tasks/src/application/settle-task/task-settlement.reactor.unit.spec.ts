import type { RecordedEvent } from '@gensvc/kernel';
import type { TaskSettlement } from './task-settlement';
import { TaskSettlementReactor } from './task-settlement.reactor';

describe('TaskSettlementReactor', () => {
  const settlement = { settle: jest.fn(async () => ({})) };
  const reactor = new TaskSettlementReactor(settlement as unknown as TaskSettlement);
  beforeEach(() => settlement.settle.mockClear());

  it('hears the terminal task events only', () => {
    expect([...reactor.handles].sort()).toEqual(['TaskCanceled', 'TaskFailed', 'TaskSucceeded']);
  });

  it.each(['TaskSucceeded', 'TaskFailed', 'TaskCanceled'])('%s runs the settlement workflow of that task', async (type) => {
    await reactor.handle({ type, data: { task_id: 'task_7', account_id: 'acc_1', at: 'x' } } as unknown as RecordedEvent);
    expect(settlement.settle).toHaveBeenCalledTimes(1);
    expect(settlement.settle).toHaveBeenCalledWith('task_7');
  });
});
