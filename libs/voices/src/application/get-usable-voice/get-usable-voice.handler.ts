import { Injectable } from '@nestjs/common';
import { Catalogue, ROUTED } from '@gensvc/catalogue/contracts';
import { AppError } from '@gensvc/kernel';
import { isVoiceId } from '../../domain/voice';
import { VoiceStore } from '../voice-store';
import { modelsFor } from '../voice-views';

export interface GetUsableVoiceQuery {
  readonly account_id: string;
  readonly voice_id: string;
  /**
   * The supplier channel(s) of the model the voice is for (a model with routes has one per
   * route). `ROUTED` (a task of a routed model, checked against its routes when quoted) checks
   * only that the voice is the caller's and active: the job then runs only on routes of the
   * voice's channel.
   */
  readonly supplier: string | readonly string[];
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
    const allowed = typeof supplier === 'string' ? [supplier] : supplier;
    if (supplier !== ROUTED && !allowed.includes(voice.supplier)) {
      throw new AppError('VALIDATION_ERROR', `input.voice_id: voice ${voiceId} cannot be used with this model; use one of ${modelsFor(this.catalogue, voice).join(', ') || 'no current model'}`);
    }
    return { id: voice.voiceId, supplierVoiceId: voice.supplierVoiceId };
  }
}
