import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { VoiceStore } from '../voice-store';
import { voiceView, type VoiceView } from '../voice-views';

export interface GetVoiceQuery {
  readonly account_id: string;
  readonly voice_id: string;
}

/** GET /v1/voices/{id}: the caller's voice with its deletion state, folded from its stream (always current). */
@Injectable()
export class GetVoiceHandler {
  constructor(
    private readonly voices: VoiceStore,
    private readonly catalogue: Catalogue,
  ) {}

  async execute(query: GetVoiceQuery): Promise<VoiceView> {
    return voiceView(this.catalogue, await this.voices.owned(query.account_id, query.voice_id));
  }
}
