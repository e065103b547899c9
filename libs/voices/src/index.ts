export * from './contracts';
export { VoicesModule } from './voices.module';
export { VoicesService, type VoiceView, type VoicePage } from './application/voice-views';
