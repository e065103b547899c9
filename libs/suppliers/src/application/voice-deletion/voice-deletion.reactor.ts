import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import type { RecordedEvent } from '@gensvc/kernel';
import type { VoiceEvent } from '@gensvc/voices/contracts';
import { VoiceDeletion } from './voice-deletion';

/**
 * Carries out queued voice deletions (VoiceDeletionRequested of the voices context) through
 * the voice deletion workflow's processor: the voice is removed at the supplier channel that
 * made it, then the voices context records it deleted. A checkpointed reactor: after a crash
 * the events since the last checkpoint come again, and the workflow resumes from what is
 * stored (a voice no longer queued is left alone). A failing channel makes the engine retry
 * with backoff, before anything is recorded.
 */
@Injectable()
@AsReactor()
export class VoiceDeletionReactor implements Reactor {
  readonly name = 'suppliers.voice-deletion';
  readonly handles: readonly VoiceEvent['type'][] = ['VoiceDeletionRequested'];
  /** One worker asks the supplier to delete (a lease across the processes sharing the stores), not every worker. */
  readonly exclusive = true;

  constructor(private readonly deletion: VoiceDeletion) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.deletion.processor.resume((event.data as { voice_id: string }).voice_id);
  }
}
