export * from './contracts/voice-registry';
