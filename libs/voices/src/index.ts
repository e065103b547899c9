export * from './contracts';
export { VoicesModule } from './voices.module';
export { VoicesService, type VoiceView, type VoicePage } from './application/voices.service';

import { VoicesProjection, VoiceUsageProjection } from './application/voices.projections';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const VOICES_PROJECTIONS = [VoicesProjection, VoiceUsageProjection] as const;
