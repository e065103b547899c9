import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { VoiceDeletions } from './contracts/voice-deletions';
import { VoiceRegistry } from './contracts/voice-registry';
import { VoicesController } from './api/voices.controller';
import { CompleteVoiceDeletionHandler } from './application/complete-voice-deletion/complete-voice-deletion.handler';
import { CreateVoiceHandler } from './application/create-voice/create-voice.handler';
import { DeleteVoiceHandler } from './application/delete-voice/delete-voice.handler';
import { VoiceUsageProjection } from './application/delete-voice/voice-usage.projection';
import { GetUsableVoiceHandler } from './application/get-usable-voice/get-usable-voice.handler';
import { GetVoiceHandler } from './application/get-voice/get-voice.handler';
import { ListVoicesHandler } from './application/list-voices/list-voices.handler';
import { VoicesProjection } from './application/list-voices/voices.projection';
import { VoiceDeletionsService } from './application/voice-deletions/voice-deletions.service';
import { VoiceRegistryService } from './application/voice-registry/voice-registry.service';
import { VoiceStore } from './application/voice-store';

/**
 * Voices context: cloned voices, their deletion, and the registry other contexts use.
 * Imports: the storage module and the catalogue (`Catalogue`). A deletion is queued here
 * (VoiceDeletionRequested); the context that removes the voice at its supplier channel (the
 * suppliers context reacts to that event) records it done through `VoiceDeletions`, so this
 * context knows nothing of suppliers.
 */
@Module({})
export class VoicesModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: VoicesModule,
      imports: deps.imports,
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
        CompleteVoiceDeletionHandler,
        VoiceDeletionsService,
        { provide: VoiceDeletions, useExisting: VoiceDeletionsService },
      ],
      exports: [VoiceRegistry, VoiceDeletions, ListVoicesHandler, GetVoiceHandler, DeleteVoiceHandler],
    };
  }
}
