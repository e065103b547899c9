import { Injectable, Logger } from '@nestjs/common';
import { type Command } from '@gensvc/kernel';
import { VoiceStore } from '../voice-store';

/** Sent through the `VoiceDeletions` port once the voice is removed at its supplier channel. */
export type CompleteVoiceDeletionCommand = Command<'CompleteVoiceDeletion', { readonly voice_id: string }>;

/** VoiceDeleted for a voice whose deletion is queued; a voice not being deleted (a repeat) stays as it is. */
@Injectable()
export class CompleteVoiceDeletionHandler {
  private readonly logger = new Logger('VoiceDeletion');

  constructor(private readonly voices: VoiceStore) {}

  async execute(cmd: CompleteVoiceDeletionCommand): Promise<void> {
    const voiceId = cmd.data.voice_id;
    const result = await this.voices.handle(voiceId, { type: 'CompleteVoiceDeletion', data: {}, metadata: cmd.metadata });
    if (result.events.length) this.logger.log({ voiceId }, 'voice deleted');
  }
}
