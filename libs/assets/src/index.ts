export * from './contracts';
export { AssetsModule, type AssetsOptions } from './assets.module';
export { ImportNetwork } from './application/import-asset/import-network';
export { UploadLimits } from './domain/limits';
export { UploadExpiryJob } from './application/background/upload-expiry.job';
export { ACCEPTED_MIMES, type AcceptedMime } from './domain/media-types';
