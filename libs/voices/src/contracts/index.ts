/** The voices context's contracts: what other libraries may import (Nest-free). */
export * from './voice-registry';
export * from './voice-deletions';
export { VOICE_EVENT_TYPES, VOICE_STREAM, type VoiceEvent } from '../domain/voice';
