import type { Workflow } from '@gensvc/kernel';

/**
 * Carrying out a queued voice deletion (the voices context's VoiceDeletionRequested) as a
 * pure workflow: the voice is removed at the supplier channel that made it, then the voices
 * context records it deleted. Both commands are idempotent (a voice already gone at the
 * channel counts as removed; completing a deletion twice changes nothing), so a run resumed
 * after a crash between them repeats both and converges.
 */
export type VoiceDeletionInput =
  | { readonly type: 'VoiceDeletionQueued'; readonly data: { readonly voice_id: string; readonly supplier: string; readonly supplier_voice_id: string } }
  | { readonly type: 'VoiceRemovedAtSupplier'; readonly data: { readonly voice_id: string } }
  | { readonly type: 'VoiceDeleted'; readonly data: { readonly voice_id: string } };

export type VoiceDeletionCommand =
  | { readonly type: 'RemoveAtSupplier'; readonly data: { readonly voice_id: string; readonly supplier: string; readonly supplier_voice_id: string } }
  | { readonly type: 'CompleteDeletion'; readonly data: { readonly voice_id: string } };

export type VoiceDeletionState =
  | { readonly status: 'none' }
  | { readonly status: 'queued' | 'removed'; readonly voice_id: string }
  | { readonly status: 'deleted' };

export const voiceDeletionWorkflow: Workflow<VoiceDeletionInput, VoiceDeletionState, VoiceDeletionCommand> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, input) {
    if (state.status === 'deleted') return state;
    switch (input.type) {
      case 'VoiceDeletionQueued':
        return state.status === 'none' ? { status: 'queued', voice_id: input.data.voice_id } : state;
      case 'VoiceRemovedAtSupplier':
        return state.status === 'queued' ? { status: 'removed', voice_id: state.voice_id } : state;
      case 'VoiceDeleted':
        return { status: 'deleted' };
    }
  },
  decide(input, state) {
    if (input.type === 'VoiceDeletionQueued' && state.status === 'queued') return [{ type: 'RemoveAtSupplier', data: input.data }];
    if (input.type === 'VoiceRemovedAtSupplier' && state.status === 'removed') return [{ type: 'CompleteDeletion', data: { voice_id: state.voice_id } }];
    return [];
  },
};
