import { FixedClock, streamName, type RecordedEvent } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { VOICE_STREAM, VoiceDeletions } from '@gensvc/voices/contracts';
import type { ChannelVoiceRemover } from './channel-voice-remover';
import { VoiceDeletion } from './voice-deletion';
import { VoiceDeletionReactor } from './voice-deletion.reactor';

/** The voices context's side of the port, as its streams hold it (the voice stream, folded by hand here). */
class StreamVoiceDeletions extends VoiceDeletions {
  constructor(
    private readonly events: InMemoryEventStore,
    private readonly clock = new FixedClock(new Date('2026-01-02T00:00:00Z')),
  ) {
    super();
  }
  private async stream(voiceId: string) {
    return (await this.events.readStream(streamName(VOICE_STREAM, voiceId))).map((e) => e as unknown as { type: string; data: Record<string, string> });
  }
  override async queued(voiceId: string) {
    const events = await this.stream(voiceId);
    const created = events.find((e) => e.type === 'VoiceCreated');
    const last = events.at(-1);
    return created && last?.type === 'VoiceDeletionRequested' ? { supplier: created.data.supplier, supplierVoiceId: created.data.supplier_voice_id } : null;
  }
  override async complete(voiceId: string) {
    if (!(await this.queued(voiceId))) return;
    await this.events.appendToStream(streamName(VOICE_STREAM, voiceId), [{ type: 'VoiceDeleted', data: { voice_id: voiceId, account_id: 'acc_1', at: this.clock.now().toISOString() } }]);
  }
}

describe('VoiceDeletionReactor (suppliers)', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const event = { type: 'VoiceDeletionRequested', data: { voice_id: 'voice_1' } } as unknown as RecordedEvent;
  let events: InMemoryEventStore;
  let remove: jest.Mock<Promise<void>, [string, string]>;
  let reactor: VoiceDeletionReactor;
  const types = async () => (await events.readStream(streamName(VOICE_STREAM, 'voice_1'))).map((e) => e.type);
  const seed = async (deleting: boolean) => {
    await events.appendToStream(streamName(VOICE_STREAM, 'voice_1'), [
      { type: 'VoiceCreated', data: { voice_id: 'voice_1', account_id: 'acc_1', task_id: 'task_1', supplier: 'http-a', supplier_voice_id: 'sv_1', name: 'n', at } },
      ...(deleting ? [{ type: 'VoiceDeletionRequested', data: { voice_id: 'voice_1', account_id: 'acc_1', at } }] : []),
    ]);
  };

  beforeEach(() => {
    events = new InMemoryEventStore();
    remove = jest.fn(async (_supplier: string, _supplierVoiceId: string): Promise<void> => undefined);
    reactor = new VoiceDeletionReactor(new VoiceDeletion(new StreamVoiceDeletions(events), { remove } as unknown as ChannelVoiceRemover, events));
  });
  afterEach(() => events.close());

  it('handles the voices context deletion request, checkpointed and exclusive', () => {
    expect([reactor.name, reactor.handles, reactor.exclusive]).toEqual(['suppliers.voice-deletion', ['VoiceDeletionRequested'], true]);
  });

  it('removes the voice at the channel that made it, then completes the deletion; a redelivery (after a crash) changes nothing more', async () => {
    await seed(true);
    await reactor.handle(event);
    expect(remove).toHaveBeenCalledWith('http-a', 'sv_1');
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
    await reactor.handle(event);
    expect(remove).toHaveBeenCalledTimes(1);
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
  });

  it('a channel failure throws before anything is recorded (the engine retries); the retry completes it', async () => {
    await seed(true);
    remove.mockRejectedValueOnce(new Error('supplier down'));
    await expect(reactor.handle(event)).rejects.toThrow('supplier down');
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested']);
    await reactor.handle(event);
    expect(remove).toHaveBeenCalledTimes(2);
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
  });

  it('a voice not queued for deletion (unknown, active, deleted): nothing', async () => {
    await reactor.handle(event);
    await seed(false);
    await reactor.handle(event);
    expect(remove).not.toHaveBeenCalled();
    expect(await types()).toEqual(['VoiceCreated']);
  });
});
