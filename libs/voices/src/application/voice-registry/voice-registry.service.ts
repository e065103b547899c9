import { Injectable } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { VoiceRegistry } from '../../contracts/voice-registry';
import { CreateVoiceHandler } from '../create-voice/create-voice.handler';
import { GetUsableVoiceHandler } from '../get-usable-voice/get-usable-voice.handler';

/** The voices context's port for quoting, tasks and suppliers: each call is one use case's handler. */
@Injectable()
export class VoiceRegistryService extends VoiceRegistry {
  constructor(
    private readonly clock: Clock,
    private readonly createVoice: CreateVoiceHandler,
    private readonly usableVoice: GetUsableVoiceHandler,
  ) {
    super();
  }

  override requireUsable(accountId: string, voiceId: string, supplier: string | readonly string[]): Promise<{ id: string; supplierVoiceId: string }> {
    return this.usableVoice.execute({ account_id: accountId, voice_id: voiceId, supplier });
  }

  override register(voice: { accountId: string; taskId: string; supplier: string; supplierVoiceId: string; name: string }): Promise<string> {
    return this.createVoice.execute({
      type: 'CreateVoice',
      data: { account_id: voice.accountId, task_id: voice.taskId, supplier: voice.supplier, supplier_voice_id: voice.supplierVoiceId, name: voice.name },
      metadata: { now: this.clock.now() },
    });
  }
}
