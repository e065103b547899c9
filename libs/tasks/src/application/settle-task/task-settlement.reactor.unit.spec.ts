import type { RecordedEvent } from '@gensvc/kernel';
import type { TaskSettlement } from './task-settlement';
import { TaskSettlementReactor } from './task-settlement.reactor';

describe('TaskSettlementReactor', () => {
  const resume = jest.fn(async () => null);
  const reactor = new TaskSettlementReactor({ processor: { resume } } as unknown as TaskSettlement);
  beforeEach(() => resume.mockClear());

  it('hears the terminal task events only', () => {
    expect([...reactor.handles].sort()).toEqual(['TaskCanceled', 'TaskFailed', 'TaskSucceeded']);
  });

  it.each(['TaskSucceeded', 'TaskFailed', 'TaskCanceled'])('%s resumes the settlement workflow of that task', async (type) => {
    await reactor.handle({ type, data: { task_id: 'task_7', account_id: 'acc_1', at: 'x' } } as unknown as RecordedEvent);
    expect(resume).toHaveBeenCalledTimes(1);
    expect(resume).toHaveBeenCalledWith('task_7');
  });
});
