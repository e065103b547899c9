import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { AppError, Clock, EventStore, ReadStore, SubscriptionEngine, handleCommand, loadAggregate, streamName } from '@gensvc/shared';
import { VoiceRegistry } from '../contracts/voice-registry';
import { isVoiceId, VOICE_STREAM, voiceDecider, voiceIdForTask, type VoiceState } from '../domain/voice';
import { VOICE_USAGE, VOICES, type VoiceDoc, type VoiceUsageDoc } from './list-voices/voices.projection';

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

type KnownVoice = Exclude<VoiceState, { status: 'none' }>;

/**
 * Voices: the registry other contexts use (register from voice cloning, requireUsable for
 * quotes and tasks) and the account's own list, read and deletion. Single reads and
 * deletions fold the voice's stream (always current); the list reads the projection.
 */
@Injectable()
export class VoicesService extends VoiceRegistry {
  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly catalogue: Catalogue,
  ) {
    super();
  }

  override async register(voice: { accountId: string; taskId: string; supplier: string; supplierVoiceId: string; name: string }): Promise<string> {
    const voiceId = voiceIdForTask(voice.taskId);
    const result = await handleCommand(this.events, streamName(VOICE_STREAM, voiceId), voiceDecider, { type: 'CreateVoice', data: { voice_id: voiceId, account_id: voice.accountId, task_id: voice.taskId, supplier: voice.supplier, supplier_voice_id: voice.supplierVoiceId, name: voice.name.trim().slice(0, 100) || 'Cloned voice' }, metadata: { now: this.clock.now() } });
    if (result.state.status !== 'none' && result.state.accountId !== voice.accountId) throw new Error(`voice ${voiceId} belongs to another account`);
    return voiceId;
  }

  override async requireUsable(accountId: string, voiceId: string, supplier: string): Promise<{ id: string; supplierVoiceId: string }> {
    const voice = typeof voiceId === 'string' && isVoiceId(voiceId) ? await this.load(voiceId) : null;
    if (!voice || voice.accountId !== accountId) throw new AppError('VALIDATION_ERROR', `input.voice_id: no voice ${voiceId} of yours exists`);
    if (voice.status !== 'active') throw new AppError('VALIDATION_ERROR', `input.voice_id: voice ${voiceId} is ${voice.status} and can no longer be used`);
    if (voice.supplier !== supplier) {
      throw new AppError('VALIDATION_ERROR', `input.voice_id: voice ${voiceId} cannot be used with this model; use one of ${this.modelsFor(voice).join(', ') || 'no current model'}`);
    }
    return { id: voice.voiceId, supplierVoiceId: voice.supplierVoiceId };
  }

  async list(accountId: string, query: { page: number; limit: number; status?: VoiceView['status'] }): Promise<VoicePage> {
    const filter = { account_id: accountId, status: query.status ?? { $in: ['active', 'deleting'] } };
    const docs = await this.readStore
      .collection<VoiceDoc & { _id: string }>(VOICES)
      .find(filter, { sort: { created_at: -1, _id: -1 }, skip: (query.page - 1) * query.limit, limit: query.limit + 1 });
    return {
      data: docs.slice(0, query.limit).map((d) => this.viewOfDoc(d)),
      page: query.page,
      limit: query.limit,
      has_more: docs.length > query.limit,
    };
  }

  async get(accountId: string, voiceId: string): Promise<VoiceView> {
    return this.view(await this.owned(accountId, voiceId));
  }

  /** Queues the deletion (202): VOICE_IN_USE while an unfinished task uses the voice. */
  async delete(accountId: string, voiceId: string): Promise<VoiceView> {
    const voice = await this.owned(accountId, voiceId);
    if (voice.status !== 'active') return this.view(voice);
    // The usage read model must have seen every task created so far.
    await this.engine.waitFor(await this.events.headPosition());
    const inUse = (await this.readStore.collection<VoiceUsageDoc & { _id: string }>(VOICE_USAGE).count({ voice_id: voiceId, active: true })) > 0;
    const result = await handleCommand(this.events, streamName(VOICE_STREAM, voiceId), voiceDecider, { type: 'RequestVoiceDeletion', data: { in_use: inUse }, metadata: { now: this.clock.now() } });
    await this.engine.waitFor(result.position);
    return this.view(result.state as KnownVoice);
  }

  async load(voiceId: string): Promise<KnownVoice | null> {
    const { state } = await loadAggregate(this.events, streamName(VOICE_STREAM, voiceId), voiceDecider);
    return state.status === 'none' ? null : state;
  }

  private async owned(accountId: string, voiceId: string): Promise<KnownVoice> {
    const voice = isVoiceId(voiceId) ? await this.load(voiceId) : null;
    if (!voice || voice.accountId !== accountId) throw new AppError('NOT_FOUND', `voice ${voiceId} not found`);
    return voice;
  }

  /** Catalogue models of the voice's supplier channel that take a voice_id. */
  private modelsFor(voice: { supplier: string }): string[] {
    return this.catalogue
      .models()
      .filter((m) => m.available && m.supplier === voice.supplier && Object.prototype.hasOwnProperty.call((m.input_schema.properties as object | undefined) ?? {}, 'voice_id'))
      .map((m) => m.id);
  }

  private view(v: KnownVoice): VoiceView {
    return {
      id: v.voiceId,
      name: v.name,
      status: v.status,
      source_task_id: v.taskId,
      models: v.status === 'active' ? this.modelsFor(v) : [],
      created_at: v.createdAt,
      updated_at: v.deletedAt ?? v.deletionRequestedAt ?? v.createdAt,
      deletion: {
        status: v.status === 'active' ? 'none' : v.status === 'deleting' ? 'queued' : 'completed',
        requested_at: v.deletionRequestedAt,
        completed_at: v.deletedAt,
      },
    };
  }

  private viewOfDoc(d: VoiceDoc): VoiceView {
    return this.view({
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
}
