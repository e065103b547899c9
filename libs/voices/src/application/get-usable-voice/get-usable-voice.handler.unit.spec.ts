import { Catalogue } from '@gensvc/catalogue/contracts';
import { AppError } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { VoiceStore } from '../voice-store';
import { GetUsableVoiceHandler } from './get-usable-voice.handler';

describe('GetUsableVoiceHandler', () => {
  const catalogue = Catalogue.load();
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  let events: InMemoryEventStore;
  let voices: VoiceStore;
  let handler: GetUsableVoiceHandler;
  const refusal = async (accountId: string, voiceId: string, supplier: string): Promise<AppError> => {
    const err = await handler.execute({ account_id: accountId, voice_id: voiceId, supplier }).catch((e: unknown) => e);
    if (!(err instanceof AppError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return err;
  };

  beforeEach(async () => {
    events = new InMemoryEventStore();
    voices = new VoiceStore(events);
    handler = new GetUsableVoiceHandler(voices, catalogue);
    const create = (id: string) => ({ type: 'CreateVoice' as const, data: { voice_id: id, account_id: 'acc_1', task_id: `task_${id}`, supplier: 'local', supplier_voice_id: `sv_${id}`, name: 'n' }, metadata });
    await voices.handle('voice_active0001', create('voice_active0001'));
    await voices.handle('voice_deleting001', create('voice_deleting001'));
    await voices.handle('voice_deleting001', { type: 'RequestVoiceDeletion', data: { in_use: false }, metadata });
  });
  afterEach(() => events.close());

  it("answers the caller's active voice of the model's supplier channel", async () => {
    expect(await handler.execute({ account_id: 'acc_1', voice_id: 'voice_active0001', supplier: 'local' })).toEqual({ id: 'voice_active0001', supplierVoiceId: 'sv_voice_active0001' });
  });

  it('refuses, naming input.voice_id: unknown, malformed, another account, no longer active, another channel', async () => {
    const cases: [string, string, string, string][] = [
      ['acc_1', 'voice_unknown0001', 'local', 'no voice voice_unknown0001 of yours exists'],
      ['acc_1', 'not a voice', 'local', 'of yours exists'],
      ['acc_2', 'voice_active0001', 'local', 'of yours exists'],
      ['acc_1', 'voice_deleting001', 'local', 'is deleting and can no longer be used'],
      ['acc_1', 'voice_active0001', 'http-a', 'cannot be used with this model; use one of speech-tts-std'],
    ];
    for (const [account, voice, supplier, text] of cases) {
      const err = await refusal(account, voice, supplier);
      expect([err.code, err.message]).toEqual(['VALIDATION_ERROR', expect.stringMatching(new RegExp(`^input\\.voice_id: .*${text.replace(/[.*]/g, '\\$&')}`))]);
    }
  });
});
