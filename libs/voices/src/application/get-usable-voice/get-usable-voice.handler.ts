import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { AppError } from '@gensvc/shared';
import { isVoiceId } from '../../domain/voice';
import { VoiceStore } from '../voice-store';
import { modelsFor } from '../voice-views';

export interface GetUsableVoiceQuery {
  readonly account_id: string;
  readonly voice_id: string;
  /** The supplier channel of the model the voice is for. */
  readonly supplier: string;
}

/**
 * The caller's own active voice, usable with models of `supplier` (a voice is bound to the
 * supplier channel that made it), read from its stream; VALIDATION_ERROR naming `input.voice_id`.
 */
@Injectable()
export class GetUsableVoiceHandler {
  constructor(
    private readonly voices: VoiceStore,
    private readonly catalogue: Catalogue,
  ) {}

  async execute(query: GetUsableVoiceQuery): Promise<{ id: string; supplierVoiceId: string }> {
    const { account_id: accountId, voice_id: voiceId, supplier } = query;
    const voice = typeof voiceId === 'string' && isVoiceId(voiceId) ? await this.voices.load(voiceId) : null;
    if (!voice || voice.accountId !== accountId) throw new AppError('VALIDATION_ERROR', `input.voice_id: no voice ${voiceId} of yours exists`);
    if (voice.status !== 'active') throw new AppError('VALIDATION_ERROR', `input.voice_id: voice ${voiceId} is ${voice.status} and can no longer be used`);
    if (voice.supplier !== supplier) {
      throw new AppError('VALIDATION_ERROR', `input.voice_id: voice ${voiceId} cannot be used with this model; use one of ${modelsFor(this.catalogue, voice).join(', ') || 'no current model'}`);
    }
    return { id: voice.voiceId, supplierVoiceId: voice.supplierVoiceId };
  }
}
