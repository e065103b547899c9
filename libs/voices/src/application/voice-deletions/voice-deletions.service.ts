import { Injectable } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { VoiceDeletions } from '../../contracts/voice-deletions';
import { CompleteVoiceDeletionHandler } from '../complete-voice-deletion/complete-voice-deletion.handler';
import { VoiceStore } from '../voice-store';

/** The `VoiceDeletions` port (for the suppliers context, which removes voices at their channels). */
@Injectable()
export class VoiceDeletionsService extends VoiceDeletions {
  constructor(
    private readonly voices: VoiceStore,
    private readonly clock: Clock,
    private readonly completeDeletion: CompleteVoiceDeletionHandler,
  ) {
    super();
  }

  override async queued(voiceId: string): Promise<{ supplier: string; supplierVoiceId: string } | null> {
    const voice = await this.voices.load(voiceId);
    return voice?.status === 'deleting' ? { supplier: voice.supplier, supplierVoiceId: voice.supplierVoiceId } : null;
  }

  override complete(voiceId: string): Promise<void> {
    return this.completeDeletion.execute({ type: 'CompleteVoiceDeletion', data: { voice_id: voiceId }, metadata: { now: this.clock.now() } });
  }
}
