import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/shared';
import { VoiceRegistry } from './contracts/voice-registry';
import { VoicesController } from './api/voices.controller';
import { VoiceDeletionReactor } from './application/voice-deletion.reactor';
import { VoicesProjection, VoiceUsageProjection } from './application/voices.projections';
import { VoicesService } from './application/voices.service';

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
      providers: [VoicesService, { provide: VoiceRegistry, useExisting: VoicesService }, VoicesProjection, VoiceUsageProjection, VoiceDeletionReactor],
      exports: [VoiceRegistry, VoicesService],
    };
  }
}
