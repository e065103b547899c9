import { Module, type DynamicModule } from '@nestjs/common';
import { AssetRegistry } from './contracts/asset-registry';
import { UploadLimits } from './domain/limits';
import { AssetLinks } from './application/asset-links';
import { AssetRecords } from './application/asset-records';
import { AssetRegistryService } from './application/asset-registry';
import { AssetsService } from './application/list-assets/list-assets.handler';
import { StorageCleanupReactor } from './application/background/storage-cleanup.reactor';
import { UploadAssetsReactor } from './application/complete-upload/upload-assets.reactor';
import { UploadExpiryJob } from './application/background/upload-expiry.job';
import { ImportNetwork } from './application/import-asset/import-network';
import { ImportService } from './application/import-asset/import-asset.handler';
import { AssetListProjection, TaskAssetRefsProjection, UploadsProjection } from './application/uploads.projection';
import { FileServer } from './application/serve-file/serve-file.handler';
import { ReceiveSlots } from './application/receive-slots';
import { UploadsService } from './application/receive-content/receive-content.handler';
import { AssetsController } from './api/assets.controller';
import { UploadsController } from './api/uploads.controller';
import { DnsImportNetwork } from './infrastructure/dns-import-network';

export interface AssetsOptions {
  /** Tests only: a network that resolves test names and trusts a test certificate. */
  readonly importNetwork?: ImportNetwork;
  /** Tests only: shorter time limits. */
  readonly limits?: Partial<UploadLimits>;
}

/**
 * Uploads and assets: prepared uploads, direct upload, import, assets with signed links,
 * deletion and storage cleanup. Global: other contexts inject `AssetRegistry`.
 */
@Module({})
export class AssetsModule {
  static forRoot(options: AssetsOptions = {}): DynamicModule {
    return {
      module: AssetsModule,
      global: true,
      controllers: [UploadsController, AssetsController],
      providers: [
        { provide: UploadLimits, useValue: new UploadLimits(options.limits) },
        { provide: ImportNetwork, useValue: options.importNetwork ?? new DnsImportNetwork() },
        AssetLinks,
        AssetRecords,
        AssetsService,
        UploadsService,
        ImportService,
        FileServer,
        ReceiveSlots,
        AssetRegistryService,
        { provide: AssetRegistry, useExisting: AssetRegistryService },
        UploadsProjection,
        TaskAssetRefsProjection,
        AssetListProjection,
        StorageCleanupReactor,
        UploadAssetsReactor,
        UploadExpiryJob,
      ],
      exports: [AssetRegistry, UploadExpiryJob],
    };
  }
}
