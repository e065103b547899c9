export * from './contracts';
export { VoicesModule } from './voices.module';
export { ListVoicesHandler, type ListVoicesQuery } from './application/list-voices/list-voices.handler';
export { GetVoiceHandler, type GetVoiceQuery } from './application/get-voice/get-voice.handler';
export { DeleteVoiceHandler, type DeleteVoiceCommand } from './application/delete-voice/delete-voice.handler';
export type { VoiceView, VoicePage } from './application/voice-views';
