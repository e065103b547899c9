import { ConcurrencyError, type Workflow } from '@gensvc/kernel';
import type { EventStore } from './event-store.port';
import { AppendChain, ChainDiverged } from './append-chain';
import { WorkflowProcessor, type WorkflowDefinition } from './workflow-processor';

/** A counter that asks for `Add` until it reaches its target; every `Add` answers `Added`. */
type In = { type: 'Start'; target: number } | { type: 'Added' };
type Cmd = { type: 'Add' };
type State = { target: number; count: number };
const counting: Workflow<In, State, Cmd> = {
  initialState: () => ({ target: 0, count: 0 }),
  evolve: (s, i) => (i.type === 'Start' ? { target: i.target, count: 0 } : { ...s, count: s.count + 1 }),
  decide: (_i, s) => (s.count < s.target ? [{ type: 'Add' }] : []),
};

const store = (pipelined: boolean) => ({ pipelinedAppends: pipelined }) as EventStore;

function processorWith(stored: readonly In[], options: Partial<WorkflowDefinition<string, In, State, Cmd>> = {}, events = store(false)) {
  const execute = jest.fn(async () => ({ inputs: [{ type: 'Added' } as In], position: 3n }));
  const history = jest.fn(async () => stored);
  const processor = new WorkflowProcessor<string, In, State, Cmd>(
    { name: 'counting', workflow: counting, idOf: (k) => k, history, execute, finished: (s) => s.count >= s.target, ...options },
    events,
  );
  return { processor, execute, history };
}

describe('WorkflowProcessor', () => {
  it('folds the history, decides on its last input, and feeds the outcomes back until the workflow sends nothing', async () => {
    const { processor, execute } = processorWith([]);
    const run = await processor.start('w1', async () => [{ type: 'Start', target: 3 }]);
    expect(execute).toHaveBeenCalledTimes(3);
    expect(run).toEqual({ state: { target: 3, count: 3 }, position: 3n });
  });

  it('inputs already seen are history: resuming after two of three steps executes only the third', async () => {
    const { processor, execute } = processorWith([{ type: 'Start', target: 3 }, { type: 'Added' }, { type: 'Added' }]);
    expect((await processor.run('w1')).state).toEqual({ target: 3, count: 3 });
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it('the subscription does nothing for an instance an inline run finished, and waits for one in progress', async () => {
    const { processor, execute, history } = processorWith([{ type: 'Start', target: 1 }]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const inline = processor.start('w1', async () => {
      await gate;
      return [{ type: 'Start', target: 1 }];
    });
    const resumed = processor.resume('w1');
    release();
    await inline;
    expect(await resumed).toBeNull();
    expect(history).not.toHaveBeenCalled();
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it('the subscription resumes from what is stored an instance whose inline run failed or did not finish', async () => {
    const { processor, execute, history } = processorWith([{ type: 'Start', target: 2 }, { type: 'Added' }]);
    execute.mockRejectedValueOnce(new Error('store unavailable'));
    await expect(processor.start('w1', async () => [{ type: 'Start', target: 2 }])).rejects.toThrow('store unavailable');
    expect((await processor.resume('w1'))?.state).toEqual({ target: 2, count: 2 });
    expect(history).toHaveBeenCalledWith('w1');
  });

  it('a chained workflow runs in one append chain and starts again from what is stored when the chain diverged', async () => {
    const events = store(true);
    const run = jest.spyOn(AppendChain, 'run').mockRejectedValueOnce(new ChainDiverged(new ConcurrencyError('x', '0', '1')));
    const { processor, history, execute } = processorWith([{ type: 'Start', target: 1 }, { type: 'Added' }], { chained: true }, events);
    expect((await processor.start('w1', async () => [{ type: 'Start', target: 1 }])).state).toEqual({ target: 1, count: 1 });
    expect(run).toHaveBeenCalledWith(events, expect.any(Function));
    expect(history).toHaveBeenCalledWith('w1');
    expect(execute).not.toHaveBeenCalled();
    run.mockRestore();
  });

  it('errors other than a diverged chain reach the caller', async () => {
    const { processor } = processorWith([], { chained: true }, store(true));
    await expect(processor.start('w1', async () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
  });
});
