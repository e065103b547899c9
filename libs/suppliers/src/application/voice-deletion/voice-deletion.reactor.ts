import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import type { RecordedEvent } from '@gensvc/kernel';
import { VoiceDeletions, type VoiceEvent } from '@gensvc/voices/contracts';
import { ChannelVoiceRemover } from './channel-voice-remover';

/**
 * Carries out queued voice deletions (VoiceDeletionRequested of the voices context): removes
 * the voice at the supplier channel that made it, then has the voices context record it
 * deleted (`VoiceDeletions.complete`). A checkpointed reactor: after a crash the events since
 * the last checkpoint come again, and both steps are idempotent (a voice already gone at the
 * channel counts as deleted; a voice no longer queued is left alone). A failing channel makes
 * the engine retry with backoff, before anything is recorded.
 */
@Injectable()
@AsReactor()
export class VoiceDeletionReactor implements Reactor {
  readonly name = 'suppliers.voice-deletion';
  readonly handles: readonly VoiceEvent['type'][] = ['VoiceDeletionRequested'];
  /** One worker asks the supplier to delete (a lease across the processes sharing the stores), not every worker. */
  readonly exclusive = true;

  constructor(
    private readonly deletions: VoiceDeletions,
    private readonly remover: ChannelVoiceRemover,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const voiceId = (event.data as { voice_id: string }).voice_id;
    const queued = await this.deletions.queued(voiceId);
    if (!queued) return;
    await this.remover.remove(queued.supplier, queued.supplierVoiceId);
    await this.deletions.complete(voiceId);
  }
}
