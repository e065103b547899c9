import { Injectable } from '@nestjs/common';
import { AppError, streamName } from '@gensvc/kernel';
import { EventStore, handleCommand, loadAggregate, type HandleResult } from '@gensvc/event-sourcing';
import { isVoiceId, VOICE_STREAM, voiceDecider, type VoiceCommand, type VoiceEvent, type VoiceState } from '../domain/voice';

export type KnownVoice = Exclude<VoiceState, { status: 'none' }>;

/** The voice streams (`voice-<voice_id>`): single reads fold the stream (always current); commands go through the kernel's handleCommand. */
@Injectable()
export class VoiceStore {
  constructor(private readonly events: EventStore) {}

  async load(voiceId: string): Promise<KnownVoice | null> {
    const { state } = await loadAggregate(this.events, streamName(VOICE_STREAM, voiceId), voiceDecider);
    return state.status === 'none' ? null : state;
  }

  /** The caller's own voice; NOT_FOUND for a malformed id, an unknown voice or another account's. */
  async owned(accountId: string, voiceId: string): Promise<KnownVoice> {
    const voice = isVoiceId(voiceId) ? await this.load(voiceId) : null;
    if (!voice || voice.accountId !== accountId) throw new AppError('NOT_FOUND', `voice ${voiceId} not found`);
    return voice;
  }

  handle(voiceId: string, command: VoiceCommand): Promise<HandleResult<VoiceState, VoiceEvent>> {
    return handleCommand(this.events, streamName(VOICE_STREAM, voiceId), voiceDecider, command);
  }
}
