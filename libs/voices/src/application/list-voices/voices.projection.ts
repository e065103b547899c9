import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, TASK_TERMINAL_EVENTS, type TaskIntegrationEvent, documentProjection } from '@gensvc/shared';
import { VOICE_EVENT_TYPES, type VoiceEvent } from '../../domain/voice';

export const VOICES = 'voices';
export const VOICE_USAGE = 'voice_usage';

export interface VoiceDoc extends Record<string, unknown> {
  id: string;
  account_id: string;
  name: string;
  status: 'active' | 'deleting' | 'deleted';
  supplier: string;
  supplier_voice_id: string;
  source_task_id: string;
  created_at: string;
  updated_at: string;
  deletion_requested_at: string | null;
  deleted_at: string | null;
}

const voices = documentProjection<VoiceDoc, VoiceEvent>({
  name: 'voices.voices',
  collection: VOICES,
  handles: VOICE_EVENT_TYPES,
  indexes: [{ keys: { account_id: 1, created_at: -1 } }],
  documentId: (e) => e.data.voice_id,
  evolve(doc, e) {
    switch (e.type) {
      case 'VoiceCreated':
        return {
          id: e.data.voice_id,
          account_id: e.data.account_id,
          name: e.data.name,
          status: 'active',
          supplier: e.data.supplier,
          supplier_voice_id: e.data.supplier_voice_id,
          source_task_id: e.data.task_id,
          created_at: e.data.at,
          updated_at: e.data.at,
          deletion_requested_at: null,
          deleted_at: null,
        };
      case 'VoiceDeletionRequested':
        return doc && { ...doc, status: 'deleting', deletion_requested_at: e.data.at, updated_at: e.data.at };
      case 'VoiceDeleted':
        return doc && { ...doc, status: 'deleted', deleted_at: e.data.at, updated_at: e.data.at };
    }
  },
});

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

@Injectable()
@AsProjection()
export class VoicesProjection extends ProjectionProvider {
  protected readonly inner = voices;
}

@Injectable()
@AsProjection()
export class VoiceUsageProjection extends ProjectionProvider {
  protected readonly inner = usage;
}
