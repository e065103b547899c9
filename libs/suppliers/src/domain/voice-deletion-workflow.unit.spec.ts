import { WorkflowSpecification } from '@gensvc/kernel/testing/workflow-specification';
import { voiceDeletionWorkflow, type VoiceDeletionInput } from './voice-deletion-workflow';

const spec = WorkflowSpecification.for(voiceDeletionWorkflow);
const queued: VoiceDeletionInput = { type: 'VoiceDeletionQueued', data: { voice_id: 'voice_1', supplier: 'http-a', supplier_voice_id: 'sv_1' } };
const removed: VoiceDeletionInput = { type: 'VoiceRemovedAtSupplier', data: { voice_id: 'voice_1' } };
const deleted: VoiceDeletionInput = { type: 'VoiceDeleted', data: { voice_id: 'voice_1' } };

describe('voice deletion workflow', () => {
  it('a queued deletion removes the voice at the channel that made it', () =>
    spec.given([]).when(queued).then([{ type: 'RemoveAtSupplier', data: { voice_id: 'voice_1', supplier: 'http-a', supplier_voice_id: 'sv_1' } }]));

  it('once removed there, the voices context records it deleted', () => spec.given([queued]).when(removed).then([{ type: 'CompleteDeletion', data: { voice_id: 'voice_1' } }]));

  it('a deleted voice sends nothing more (a redelivery after the deletion)', () => {
    spec.given([queued, removed, deleted]).when(queued).then([]);
    spec.given([deleted]).when(removed).then([]);
  });

  it('an answer for a voice never queued is ignored', () => spec.given([]).when(removed).then([]));
});
