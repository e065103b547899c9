import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
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

/**
 * Voices context: cloned voices, their deletion, and the registry other contexts use.
 * Imports: the storage module and the catalogue (`Catalogue`). The deletion reactor finds the
 * `SupplierVoiceRemover` (declared in voices' contracts, provided by the suppliers context,
 * which imports this module) when it first needs it, so the modules form no cycle.
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
        VoiceDeletionReactor,
      ],
      exports: [VoiceRegistry, ListVoicesHandler, GetVoiceHandler, DeleteVoiceHandler],
    };
  }
}
