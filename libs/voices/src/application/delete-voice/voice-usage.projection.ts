import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { TASK_TERMINAL_EVENTS, type TaskIntegrationEvent } from '@gensvc/kernel';

export const VOICE_USAGE = 'voice_usage';

/** Tasks that use a voice (TaskCreated.voice_id) and whether they are unfinished. */
export interface VoiceUsageDoc extends Record<string, unknown> {
  task_id: string;
  voice_id: string;
  account_id: string;
  active: boolean;
}

const usage = documentProjection<VoiceUsageDoc, TaskIntegrationEvent>({
  name: 'voices.usage',
  collection: VOICE_USAGE,
  handles: ['TaskCreated', ...TASK_TERMINAL_EVENTS],
  indexes: [{ keys: { voice_id: 1, active: 1 } }],
  documentId: (e) => e.data.task_id,
  evolve(doc, e) {
    if (e.type === 'TaskCreated') {
      // Only tasks with a voice get a document; terminal events of other tasks change nothing.
      if (!e.data.voice_id) return doc;
      return { task_id: e.data.task_id, voice_id: e.data.voice_id, account_id: e.data.account_id, active: doc ? doc.active : true };
    }
    // Kept (inactive) rather than deleted, so a redelivered TaskCreated cannot revive it.
    return doc ? { ...doc, active: false } : null;
  },
});

/** A voice's deletion reads this: whether an unfinished task uses the voice (VOICE_IN_USE). */
@Injectable()
@AsProjection()
export class VoiceUsageProjection extends ProjectionProvider {
  protected readonly inner = usage;
}
