import { Inject, Injectable } from '@nestjs/common';
import { EventStore, WorkflowProcessor, type WorkflowDefinition, type WorkflowOutcome } from '@gensvc/event-sourcing';
import { VoiceDeletions } from '@gensvc/voices/contracts';
import { voiceDeletionWorkflow, type VoiceDeletionCommand, type VoiceDeletionInput, type VoiceDeletionState } from '../../domain/voice-deletion-workflow';
import { ChannelVoiceRemover } from './channel-voice-remover';

/**
 * The voice deletion workflow (`domain/voice-deletion-workflow.ts`) under the workflow
 * processor: its history is the voice's queued deletion as the voices context tells it
 * (`VoiceDeletions.queued`: nothing once deleted), its commands the channel's removal and the
 * voices context's completion. Only resumed, from `VoiceDeletionReactor`: the API answers a
 * deletion 202 without waiting for it.
 */
@Injectable()
export class VoiceDeletion implements WorkflowDefinition<string, VoiceDeletionInput, VoiceDeletionState, VoiceDeletionCommand> {
  readonly name = 'suppliers.voice-deletion';
  readonly workflow = voiceDeletionWorkflow;
  readonly processor: WorkflowProcessor<string, VoiceDeletionInput, VoiceDeletionState, VoiceDeletionCommand>;

  constructor(
    private readonly deletions: VoiceDeletions,
    private readonly remover: ChannelVoiceRemover,
    @Inject(EventStore) events: EventStore,
  ) {
    this.processor = new WorkflowProcessor(this, events);
  }

  idOf(voiceId: string): string {
    return voiceId;
  }

  async history(voiceId: string): Promise<readonly VoiceDeletionInput[]> {
    const queued = await this.deletions.queued(voiceId);
    return queued ? [{ type: 'VoiceDeletionQueued', data: { voice_id: voiceId, supplier: queued.supplier, supplier_voice_id: queued.supplierVoiceId } }] : [];
  }

  finished(state: VoiceDeletionState): boolean {
    return state.status === 'deleted';
  }

  async execute(c: VoiceDeletionCommand): Promise<WorkflowOutcome<VoiceDeletionInput>> {
    switch (c.type) {
      case 'RemoveAtSupplier':
        await this.remover.remove(c.data.supplier, c.data.supplier_voice_id);
        return { inputs: [{ type: 'VoiceRemovedAtSupplier', data: { voice_id: c.data.voice_id } }] };
      case 'CompleteDeletion':
        await this.deletions.complete(c.data.voice_id);
        return { inputs: [{ type: 'VoiceDeleted', data: { voice_id: c.data.voice_id } }] };
    }
  }
}
