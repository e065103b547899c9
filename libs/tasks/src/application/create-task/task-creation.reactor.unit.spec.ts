import type { RecordedEvent } from '@gensvc/kernel';
import type { CreationIntent } from '../../domain/task-creation';
import type { CreationRun, TaskCreationRunner } from './creation-runner';
import { TaskCreationReactor } from './task-creation.reactor';

const intent = { task_id: 'task_1', account_id: 'acc_1', quote_id: 'qt_1' } as CreationIntent;
const event = { type: 'TaskCreationRequested', data: intent } as unknown as RecordedEvent;

function reactorWith(finishedInline: boolean) {
  const runner = {
    finishedInline: jest.fn(async () => finishedInline),
    resume: jest.fn(async (): Promise<CreationRun> => ({ state: { status: 'created', intent, task: {} as never }, task: null })),
  };
  return { reactor: new TaskCreationReactor(runner as unknown as TaskCreationRunner), runner };
}

describe('TaskCreationReactor', () => {
  it('hears stored creation intents only', () => {
    expect(reactorWith(false).reactor.handles).toEqual(['TaskCreationRequested']);
  });

  it('does nothing for a creation its request finished inline', async () => {
    const { reactor, runner } = reactorWith(true);
    await reactor.handle(event);
    expect(runner.finishedInline).toHaveBeenCalledWith('task_1');
    expect(runner.resume).not.toHaveBeenCalled();
  });

  it('resumes the workflow from what is stored when no inline run finished it (a failed request, a restart)', async () => {
    const { reactor, runner } = reactorWith(false);
    await reactor.handle(event);
    expect(runner.resume).toHaveBeenCalledWith(intent);
  });

  it('lets a failure through, so the engine retries the intent and its checkpoint stays before it', async () => {
    const { reactor, runner } = reactorWith(false);
    runner.resume.mockRejectedValueOnce(new Error('store unavailable'));
    await expect(reactor.handle(event)).rejects.toThrow('store unavailable');
  });
});
