export * from './contracts/voice-registry';
export * from './contracts/supplier-voice-remover';
export { VoicesModule } from './voices.module';
export { VoicesService, type VoiceView, type VoicePage } from './application/voices.service';
export { VOICE_EVENT_TYPES, VOICE_STREAM, type VoiceEvent } from './domain/voice';
