import { Catalogue } from '@gensvc/catalogue/contracts';
import { type AppConfig } from '@gensvc/config';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import type { SupplierJobEvent } from '../../contracts/supplier-gateway';
import { LocalSupplierControls } from '../../infrastructure/local/local-supplier.controls';
import { SupplierSettings } from '../../supplier-settings';
import { SupplierChannels, type SupplierChannel } from '../supplier-channel';
import { SubmitJobHandler, type SubmitJobCommand } from './submit-job.handler';
import type { SupplierJobRunner } from './supplier-job-runner';

/** Only the built-in channel, with its own deadline. */
class LocalOnly extends SupplierChannels {
  get(name: string): SupplierChannel | undefined {
    return name === 'local' ? ({ name: 'local', deadlineMs: 5_000 } as SupplierChannel) : undefined;
  }
  names(): string[] {
    return ['local'];
  }
}

describe('SubmitJobHandler', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  const catalogue = Catalogue.load();
  const settings = new SupplierSettings({ jobDeadlineMs: 600_000, callbackWindowSeconds: 300, channels: new Map(), publicBaseUrl: 'http://127.0.0.1:9', signingSecret: 's'.repeat(40) });
  let events: InMemoryEventStore;
  let runner: { schedule: jest.Mock };
  let handler: SubmitJobHandler;
  const submit = (data: Partial<SubmitJobCommand['data']> = {}) =>
    handler.execute({
      type: 'SubmitJob',
      data: { task_id: 'task_1', account_id: 'acc_1', model_id: 'text-writer-lite', capability: 'text.generate', params: { prompt: 'x' }, ...data },
      metadata: { now },
    });
  const stored = async (taskId = 'task_1') => (await events.readStream<SupplierJobEvent>(`supplierjob-${taskId}`)).map((e) => ({ type: e.type, data: e.data }));

  beforeEach(() => {
    events = new InMemoryEventStore();
    runner = { schedule: jest.fn() };
    const controls = new LocalSupplierControls({ localSupplierDelayMs: 0 } as AppConfig);
    handler = new SubmitJobHandler(events, catalogue, settings, new LocalOnly(), controls, runner as unknown as SupplierJobRunner);
  });
  afterEach(() => events.close());

  it("queues the job once on the model's channel, with the channel's deadline from metadata.now, and hands it to the runner", async () => {
    await submit();
    await submit();
    expect(await stored()).toEqual([
      {
        type: 'SupplierJobQueued',
        data: {
          task_id: 'task_1',
          account_id: 'acc_1',
          supplier: 'local',
          at: now.toISOString(),
          model: 'text-writer-lite',
          capability: 'text.generate',
          params: { prompt: 'x' },
          deadline_at: '2026-03-01T10:00:05.000Z',
        },
      },
    ]);
    expect(runner.schedule.mock.calls).toEqual([['task_1']]);
  });

  it('queues a job for a model that left the catalogue on no channel, with the default deadline (the runner fails it)', async () => {
    await submit({ task_id: 'task_2', model_id: 'gone-model' });
    expect(await stored('task_2')).toEqual([
      { type: 'SupplierJobQueued', data: expect.objectContaining({ supplier: '', model: 'gone-model', deadline_at: '2026-03-01T10:10:00.000Z' }) },
    ]);
  });
});
