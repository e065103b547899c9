/** The assets context's contracts: what other libraries may import (Nest-free). */
export * from './asset-registry';
export { ASSET_STREAM, ASSET_EVENT_TYPES, type AssetEvent, type AssetFacts, type AssetSource } from '../domain/asset';
export { UPLOAD_STREAM, UPLOAD_EVENT_TYPES, type UploadEvent, type UploadStatus } from '../domain/upload';
