import { FixedClock, streamName } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { VOICE_STREAM } from '../../domain/voice';
import { VoiceStore } from '../voice-store';
import { CompleteVoiceDeletionHandler } from '../complete-voice-deletion/complete-voice-deletion.handler';
import { VoiceDeletionsService } from './voice-deletions.service';

describe('VoiceDeletionsService (the VoiceDeletions port)', () => {
  const at = '2026-01-01T00:00:00.000Z';
  let events: InMemoryEventStore;
  let deletions: VoiceDeletionsService;
  const types = async () => (await events.readStream(streamName(VOICE_STREAM, 'voice_1'))).map((e) => e.type);
  const created = { type: 'VoiceCreated', data: { voice_id: 'voice_1', account_id: 'acc_1', task_id: 'task_1', supplier: 'http-a', supplier_voice_id: 'sv_1', name: 'n', at } };

  beforeEach(() => {
    events = new InMemoryEventStore();
    const voices = new VoiceStore(events);
    deletions = new VoiceDeletionsService(voices, new FixedClock(new Date('2026-01-02T00:00:00Z')), new CompleteVoiceDeletionHandler(voices));
  });
  afterEach(() => events.close());

  it('names the supplier voice of a queued deletion only', async () => {
    expect(await deletions.queued('voice_1')).toBeNull();
    await events.appendToStream(streamName(VOICE_STREAM, 'voice_1'), [created]);
    expect(await deletions.queued('voice_1')).toBeNull();
    await events.appendToStream(streamName(VOICE_STREAM, 'voice_1'), [{ type: 'VoiceDeletionRequested', data: { voice_id: 'voice_1', account_id: 'acc_1', at } }]);
    expect(await deletions.queued('voice_1')).toEqual({ supplier: 'http-a', supplierVoiceId: 'sv_1' });
  });

  it('completes a queued deletion once; a repeat changes nothing, and a voice not being deleted stays as it is', async () => {
    await events.appendToStream(streamName(VOICE_STREAM, 'voice_1'), [created]);
    await deletions.complete('voice_1');
    expect(await types()).toEqual(['VoiceCreated']);
    await events.appendToStream(streamName(VOICE_STREAM, 'voice_1'), [{ type: 'VoiceDeletionRequested', data: { voice_id: 'voice_1', account_id: 'acc_1', at } }]);
    await deletions.complete('voice_1');
    await deletions.complete('voice_1');
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
    expect(await deletions.queued('voice_1')).toBeNull();
  });
});
