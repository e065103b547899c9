export * from './contracts/upload-tokens';
