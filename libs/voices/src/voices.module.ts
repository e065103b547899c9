import { Global, Module } from '@nestjs/common';
import { VoiceRegistry } from './contracts/voice-registry';
import { VoicesController } from './api/voices.controller';
import { CreateVoiceHandler } from './application/create-voice/create-voice.handler';
import { DeleteVoiceHandler } from './application/delete-voice/delete-voice.handler';
import { VoiceUsageProjection } from './application/delete-voice/voice-usage.projection';
import { GetUsableVoiceHandler } from './application/get-usable-voice/get-usable-voice.handler';
import { GetVoiceHandler } from './application/get-voice/get-voice.handler';
import { ListVoicesHandler } from './application/list-voices/list-voices.handler';
import { VoicesProjection } from './application/list-voices/voices.projection';
import { VoiceDeletionReactor } from './application/voice-deletion/voice-deletion.reactor';
import { VoiceRegistryService } from './application/voice-registry/voice-registry.service';
import { VoiceStore } from './application/voice-store';

/** Voices context: cloned voices, their deletion, and the registry other contexts use. */
@Global()
@Module({
  controllers: [VoicesController],
  providers: [
    VoiceStore,
    CreateVoiceHandler,
    GetUsableVoiceHandler,
    ListVoicesHandler,
    GetVoiceHandler,
    DeleteVoiceHandler,
    VoiceRegistryService,
    { provide: VoiceRegistry, useExisting: VoiceRegistryService },
    VoicesProjection,
    VoiceUsageProjection,
    VoiceDeletionReactor,
  ],
  exports: [VoiceRegistry, ListVoicesHandler, GetVoiceHandler, DeleteVoiceHandler],
})
export class VoicesModule {}
