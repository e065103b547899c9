import type { ModuleRef } from '@nestjs/core';
import { FixedClock, streamName, type RecordedEvent } from '@gensvc/kernel';
import { SqliteEventStore } from '@gensvc/storage';
import { SupplierVoiceRemover } from '../../contracts/supplier-voice-remover';
import { VOICE_STREAM } from '../../domain/voice';
import { VoiceDeletionReactor } from './voice-deletion.reactor';
import { VoiceStore, type KnownVoice } from '../voice-store';

describe('VoiceDeletionReactor', () => {
  const event = { type: 'VoiceDeletionRequested', data: { voice_id: 'voice_1' } } as unknown as RecordedEvent;
  let events: SqliteEventStore;
  beforeEach(() => (events = new SqliteEventStore(':memory:')));
  afterEach(() => events.close());

  const setup = (voice: { status: string; supplier: string; supplierVoiceId: string } | null, remover: SupplierVoiceRemover | null) => {
    // The real stream helper, with the voice it loads given by the test.
    const voices = new VoiceStore(events);
    jest.spyOn(voices, 'load').mockImplementation(async () => voice as KnownVoice | null);
    const moduleRef = {
      get: jest.fn(() => {
        if (!remover) throw new Error('no provider');
        return remover;
      }),
    };
    return new VoiceDeletionReactor(voices, new FixedClock(new Date('2026-01-01T00:00:00Z')), moduleRef as unknown as ModuleRef);
  };
  const remover = () => ({ remove: jest.fn(async () => undefined) });

  it('a voice not being deleted (already deleted, unknown): nothing', async () => {
    const r = remover();
    await setup(null, r).handle(event);
    await setup({ status: 'deleted', supplier: 's', supplierVoiceId: 'v' }, r).handle(event);
    expect(r.remove).not.toHaveBeenCalled();
    expect(await events.readStream(streamName(VOICE_STREAM, 'voice_1'))).toEqual([]);
  });

  it('a supplier failure throws before anything is recorded (the engine retries)', async () => {
    const r = remover();
    r.remove.mockRejectedValueOnce(new Error('supplier down'));
    await expect(setup({ status: 'deleting', supplier: 'http-a', supplierVoiceId: 'sv_1' }, r).handle(event)).rejects.toThrow('supplier down');
    expect(await events.readStream(streamName(VOICE_STREAM, 'voice_1'))).toEqual([]);
  });

  const seed = async () => {
    const at = '2026-01-01T00:00:00.000Z';
    await events.appendToStream(streamName(VOICE_STREAM, 'voice_1'), [
      { type: 'VoiceCreated', data: { voice_id: 'voice_1', account_id: 'acc_1', task_id: 'task_1', supplier: 'http-a', supplier_voice_id: 'sv_1', name: 'n', at } },
      { type: 'VoiceDeletionRequested', data: { voice_id: 'voice_1', account_id: 'acc_1', at } },
    ]);
  };
  const types = async () => (await events.readStream(streamName(VOICE_STREAM, 'voice_1'))).map((e) => e.type);

  it('removes the voice at its supplier channel, then records VoiceDeleted; a redelivery changes nothing more', async () => {
    await seed();
    const r = remover();
    const reactor = setup({ status: 'deleting', supplier: 'http-a', supplierVoiceId: 'sv_1' }, r);
    await reactor.handle(event);
    expect(r.remove).toHaveBeenCalledWith('http-a', 'sv_1');
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
    await reactor.handle(event);
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
  });

  it('without a supplier remover wired, only records the deletion', async () => {
    await seed();
    await setup({ status: 'deleting', supplier: 'local', supplierVoiceId: 'sv_1' }, null).handle(event);
    expect(await types()).toEqual(['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted']);
  });
});
