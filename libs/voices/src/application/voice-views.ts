import type { Catalogue } from '@gensvc/catalogue/contracts';
import type { VoiceDoc } from './list-voices/voices.projection';
import type { KnownVoice } from './voice-store';

/** The voice as the API shows it (docs/api.md, "Suppliers and voices"). Supplier details stay inside. */
export interface VoiceView {
  id: string;
  name: string;
  status: 'active' | 'deleting' | 'deleted';
  source_task_id: string;
  /** Catalogue models this voice can be used with (input.voice_id); empty unless active. */
  models: string[];
  created_at: string;
  updated_at: string;
  deletion: { status: 'none' | 'queued' | 'completed'; requested_at: string | null; completed_at: string | null };
}

export interface VoicePage {
  data: VoiceView[];
  page: number;
  limit: number;
  has_more: boolean;
}

/** Catalogue models of the voice's supplier channel that take a voice_id. */
export function modelsFor(catalogue: Catalogue, voice: { supplier: string }): string[] {
  return catalogue
    .models()
    .filter((m) => catalogue.isAvailable(m) && catalogue.channelsOf(m).includes(voice.supplier) && Object.prototype.hasOwnProperty.call((m.input_schema.properties as object | undefined) ?? {}, 'voice_id'))
    .map((m) => m.id);
}

export function voiceView(catalogue: Catalogue, v: KnownVoice): VoiceView {
  return {
    id: v.voiceId,
    name: v.name,
    status: v.status,
    source_task_id: v.taskId,
    models: v.status === 'active' ? modelsFor(catalogue, v) : [],
    created_at: v.createdAt,
    updated_at: v.deletedAt ?? v.deletionRequestedAt ?? v.createdAt,
    deletion: {
      status: v.status === 'active' ? 'none' : v.status === 'deleting' ? 'queued' : 'completed',
      requested_at: v.deletionRequestedAt,
      completed_at: v.deletedAt,
    },
  };
}

/** The same view from the list's read model. */
export function voiceViewOfDoc(catalogue: Catalogue, d: VoiceDoc): VoiceView {
  return voiceView(catalogue, {
    status: d.status,
    voiceId: d.id,
    accountId: d.account_id,
    taskId: d.source_task_id,
    supplier: d.supplier,
    supplierVoiceId: d.supplier_voice_id,
    name: d.name,
    createdAt: d.created_at,
    deletionRequestedAt: d.deletion_requested_at,
    deletedAt: d.deleted_at,
  });
}
