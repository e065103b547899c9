export * from './contracts';
export { VoicesModule } from './voices.module';
export { ListVoicesHandler, type ListVoicesQuery } from './application/list-voices/list-voices.handler';
export { GetVoiceHandler, type GetVoiceQuery } from './application/get-voice/get-voice.handler';
export { DeleteVoiceHandler, type DeleteVoiceCommand } from './application/delete-voice/delete-voice.handler';
export type { VoiceView, VoicePage } from './application/voice-views';

import { VoicesProjection } from './application/list-voices/voices.projection';
import { VoiceUsageProjection } from './application/delete-voice/voice-usage.projection';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const VOICES_PROJECTIONS = [VoicesProjection, VoiceUsageProjection] as const;
