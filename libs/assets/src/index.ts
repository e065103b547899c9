export * from './contracts/asset-registry';
export * from './contracts/address-guard';
export { AssetsModule, type AssetsOptions } from './assets.module';
export { ImportNetwork } from './application/import/import-network';
export { UploadLimits } from './domain/limits';
export { UploadExpiryJob } from './application/background/upload-expiry.job';
export { ACCEPTED_MIMES, type AcceptedMime } from './domain/media-types';
export type { AssetEvent, AssetFacts, AssetSource } from './domain/asset';
export type { UploadEvent, UploadStatus } from './domain/upload';
