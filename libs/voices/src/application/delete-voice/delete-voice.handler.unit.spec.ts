import { Catalogue } from '@gensvc/catalogue/contracts';
import { AppError, streamName } from '@gensvc/kernel';
import { ProjectionLagError, type SubscriptionEngine } from '@gensvc/event-sourcing';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import { VOICE_STREAM } from '../../domain/voice';
import { VoiceStore } from '../voice-store';
import { DeleteVoiceHandler, type DeleteVoiceCommand } from './delete-voice.handler';
import { VOICE_USAGE, type VoiceUsageDoc } from './voice-usage.projection';

describe('DeleteVoiceHandler', () => {
  const catalogue = Catalogue.load();
  const now = new Date('2026-03-01T10:00:00.000Z');
  let events: InMemoryEventStore;
  let readStore: InMemoryReadStore;
  let handler: DeleteVoiceHandler;
  const engine = { waitFor: jest.fn(async (_position?: bigint): Promise<void> => undefined) };
  const del = (accountId: string, voiceId: string): DeleteVoiceCommand => ({ type: 'DeleteVoice', data: { account_id: accountId, voice_id: voiceId }, metadata: { now } });
  const types = async () => (await events.readStream(streamName(VOICE_STREAM, 'voice_0123456789ab'))).map((e) => e.type);
  const refusal = async (cmd: DeleteVoiceCommand): Promise<AppError> => {
    const err = await handler.execute(cmd).catch((e: unknown) => e);
    if (!(err instanceof AppError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return err;
  };

  beforeEach(async () => {
    events = new InMemoryEventStore();
    readStore = new InMemoryReadStore();
    const voices = new VoiceStore(events);
    handler = new DeleteVoiceHandler(voices, events, readStore, engine as unknown as SubscriptionEngine, catalogue);
    await voices.handle('voice_0123456789ab', {
      type: 'CreateVoice',
      data: { voice_id: 'voice_0123456789ab', account_id: 'acc_1', task_id: 'task_0123456789ab', supplier: 'local', supplier_voice_id: 'sv_1', name: 'Mine' },
      metadata: { now },
    });
  });
  afterEach(async () => {
    engine.waitFor.mockReset().mockImplementation(async () => undefined);
    await events.close();
    await readStore.close();
  });

  it('queues the deletion and answers the voice as deleting; a repeat answers it unchanged', async () => {
    const view = await handler.execute(del('acc_1', 'voice_0123456789ab'));
    expect(view).toMatchObject({ id: 'voice_0123456789ab', status: 'deleting', models: [], deletion: { status: 'queued', requested_at: now.toISOString(), completed_at: null } });
    expect(await handler.execute(del('acc_1', 'voice_0123456789ab'))).toEqual(view);
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested']);
  });

  it('refuses with VOICE_IN_USE while an unfinished task uses the voice, and not after it ended', async () => {
    const usage = readStore.collection<VoiceUsageDoc & { _id: string }>(VOICE_USAGE);
    await usage.insertOne({ _id: 'task_x', task_id: 'task_x', voice_id: 'voice_0123456789ab', account_id: 'acc_1', active: true });
    expect((await refusal(del('acc_1', 'voice_0123456789ab'))).code).toBe('VOICE_IN_USE');
    expect(await types()).toEqual(['VoiceCreated']);
    await usage.updateOne({ _id: 'task_x' }, { $set: { active: false } });
    expect((await handler.execute(del('acc_1', 'voice_0123456789ab'))).status).toBe('deleting');
  });

  it('refuses with SERVICE_UNAVAILABLE and stores nothing when the usage read model does not catch up in time', async () => {
    engine.waitFor.mockImplementation(async (position) => {
      throw new ProjectionLagError(position ?? 0n, -1n, 5000);
    });
    const err = await refusal(del('acc_1', 'voice_0123456789ab'));
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(err.headers).toEqual({ 'Retry-After': '1' });
    expect(err.message).toMatch(/nothing was changed/);
    expect(await types()).toEqual(['VoiceCreated']);
  });

  it('answers the queued deletion from its own result when the read models lag after it is stored', async () => {
    const head = await events.headPosition();
    engine.waitFor.mockImplementation(async (position) => {
      if (position !== undefined && position > head) throw new ProjectionLagError(position, head, 5000);
    });
    expect(await handler.execute(del('acc_1', 'voice_0123456789ab'))).toMatchObject({ status: 'deleting', deletion: { status: 'queued' } });
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested']);
  });

  it("answers NOT_FOUND for another account's voice and a malformed id", async () => {
    expect((await refusal(del('acc_2', 'voice_0123456789ab'))).code).toBe('NOT_FOUND');
    expect((await refusal(del('acc_1', '../x'))).code).toBe('NOT_FOUND');
    expect(await types()).toEqual(['VoiceCreated']);
  });
});
