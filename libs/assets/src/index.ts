export * from './contracts';
export { AssetsModule, type AssetsOptions } from './assets.module';
export { ImportNetwork } from './application/import-asset/import-network';
export { UploadLimits } from './domain/limits';
export { UploadExpiryJob } from './application/background/upload-expiry.job';
export { ACCEPTED_MIMES, type AcceptedMime } from './domain/media-types';

import { UploadsProjection } from './application/uploads.projection';
import { TaskAssetRefsProjection } from './application/delete-asset/task-asset-refs.projection';
import { AssetListProjection } from './application/list-assets/asset-list.projection';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const ASSETS_PROJECTIONS = [UploadsProjection, TaskAssetRefsProjection, AssetListProjection] as const;
