import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { EventStore, ReadStore, SubscriptionEngine, caughtUp } from '@gensvc/event-sourcing';
import { AppError, type Command } from '@gensvc/kernel';
import { VoiceStore, type KnownVoice } from '../voice-store';
import { voiceView, type VoiceView } from '../voice-views';
import { VOICE_USAGE, type VoiceUsageDoc } from './voice-usage.projection';

/** DELETE /v1/voices/{id}: queues the deletion of the caller's voice. */
export type DeleteVoiceCommand = Command<'DeleteVoice', { readonly account_id: string; readonly voice_id: string }>;

/**
 * VoiceDeletionRequested (answered 202; the deletion reactor completes it): VOICE_IN_USE
 * while an unfinished task uses the voice. A voice already deleting or deleted answers as it is.
 */
@Injectable()
export class DeleteVoiceHandler {
  constructor(
    private readonly voices: VoiceStore,
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly catalogue: Catalogue,
  ) {}

  async execute(cmd: DeleteVoiceCommand): Promise<VoiceView> {
    const { account_id: accountId, voice_id: voiceId } = cmd.data;
    const voice = await this.voices.owned(accountId, voiceId);
    if (voice.status !== 'active') return voiceView(this.catalogue, voice);
    // The usage read model must have seen every task created so far; when it does not catch up
    // in time the request is refused (503, nothing is stored) rather than decided on it.
    if (!(await caughtUp(this.engine.waitFor(await this.events.headPosition())))) {
      throw new AppError('SERVICE_UNAVAILABLE', "the voice's usage is being brought up to date; nothing was changed; try again", { 'Retry-After': '1' });
    }
    const inUse = (await this.readStore.collection<VoiceUsageDoc & { _id: string }>(VOICE_USAGE).count({ voice_id: voiceId, active: true })) > 0;
    const result = await this.voices.handle(voiceId, { type: 'RequestVoiceDeletion', data: { in_use: inUse }, metadata: cmd.metadata });
    // The answer is the command's own result; a lag of the read models does not fail it.
    await caughtUp(this.engine.waitFor(result.position));
    return voiceView(this.catalogue, result.state as KnownVoice);
  }
}
