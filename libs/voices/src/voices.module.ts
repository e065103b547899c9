import { Global, Module } from '@nestjs/common';
import { VoiceRegistry } from './contracts/voice-registry';
import { VoicesController } from './api/voices.controller';
import { VoiceDeletionReactor } from './application/voice-deletion/voice-deletion.reactor';
import { VoicesProjection, VoiceUsageProjection } from './application/list-voices/voices.projection';
import { VoicesService } from './application/voice-views';

/** Voices context: cloned voices, their deletion, and the registry other contexts use. */
@Global()
@Module({
  controllers: [VoicesController],
  providers: [VoicesService, { provide: VoiceRegistry, useExisting: VoicesService }, VoicesProjection, VoiceUsageProjection, VoiceDeletionReactor],
  exports: [VoiceRegistry, VoicesService],
})
export class VoicesModule {}
