import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { VOICE_EVENT_TYPES, type VoiceEvent } from '../../domain/voice';

export const VOICES = 'voices';

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

/** GET /v1/voices reads this: the account's voices, newest first. */
@Injectable()
@AsProjection()
export class VoicesProjection extends ProjectionProvider {
  protected readonly inner = voices;
}
