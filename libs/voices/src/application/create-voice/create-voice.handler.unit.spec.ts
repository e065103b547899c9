import { streamName } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { VOICE_STREAM } from '../../domain/voice';
import { VoiceStore } from '../voice-store';
import { CreateVoiceHandler, type CreateVoiceCommand } from './create-voice.handler';

describe('CreateVoiceHandler', () => {
  let events: InMemoryEventStore;
  let handler: CreateVoiceHandler;
  const now = new Date('2026-03-01T10:00:00.000Z');
  const create = (data: Partial<CreateVoiceCommand['data']> = {}): CreateVoiceCommand => ({
    type: 'CreateVoice',
    data: { account_id: 'acc_1', task_id: 'task_0123456789ab', supplier: 'local', supplier_voice_id: 'sv_1', name: '  My voice  ', ...data },
    metadata: { now },
  });
  const stored = async (voiceId: string) => (await events.readStream(streamName(VOICE_STREAM, voiceId))).map((e) => [e.type, e.data]);

  beforeEach(() => {
    events = new InMemoryEventStore();
    handler = new CreateVoiceHandler(new VoiceStore(events));
  });
  afterEach(() => events.close());

  it('records VoiceCreated under the id derived from the task, the name trimmed; a repeat answers the same id', async () => {
    expect(await handler.execute(create())).toBe('voice_0123456789ab');
    expect(await handler.execute(create())).toBe('voice_0123456789ab');
    expect(await stored('voice_0123456789ab')).toEqual([
      ['VoiceCreated', { voice_id: 'voice_0123456789ab', account_id: 'acc_1', task_id: 'task_0123456789ab', supplier: 'local', supplier_voice_id: 'sv_1', name: 'My voice', at: now.toISOString() }],
    ]);
  });

  it('names a voice with a blank name "Cloned voice"', async () => {
    const id = await handler.execute(create({ task_id: 'task_blankname000', name: '   ' }));
    expect((await stored(id))[0][1]).toMatchObject({ name: 'Cloned voice' });
  });

  it('drops control and bidirectional formatting characters from the name (it came from an accepted task input)', async () => {
    const id = await handler.execute(create({ task_id: 'task_ctrlname0000', name: 'An\u001b[2Jn\u202e\u0000a\u0085 ' }));
    expect((await stored(id))[0][1]).toMatchObject({ name: 'An[2Jna' });
    const only = await handler.execute(create({ task_id: 'task_ctrlonly0000', name: '\u001b\u202e' }));
    expect((await stored(only))[0][1]).toMatchObject({ name: 'Cloned voice' });
  });

  it("refuses to hand another account's voice over when its task id comes again", async () => {
    await handler.execute(create());
    await expect(handler.execute(create({ account_id: 'acc_2' }))).rejects.toThrow('belongs to another account');
  });
});
