import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { AssetRegistry } from './contracts/asset-registry';
import { UploadLimits } from './domain/limits';
import { AssetIngest } from './application/asset-ingest';
import { AssetLinks } from './application/asset-links';
import { AssetRecords } from './application/asset-records';
import { AssetRegistryService } from './application/asset-registry/asset-registry.service';
import { StorageCleanupReactor } from './application/background/storage-cleanup.reactor';
import { UploadExpiryJob } from './application/background/upload-expiry.job';
import { CompleteUploadHandler } from './application/complete-upload/complete-upload.handler';
import { UploadAssetsReactor } from './application/complete-upload/upload-assets.reactor';
import { DeleteAssetHandler } from './application/delete-asset/delete-asset.handler';
import { TaskAssetRefsProjection } from './application/delete-asset/task-asset-refs.projection';
import { DirectUploadHandler } from './application/direct-upload/direct-upload.handler';
import { ExpireUploadsHandler } from './application/expire-uploads/expire-uploads.handler';
import { GetAssetHandler } from './application/get-asset/get-asset.handler';
import { GetUploadHandler } from './application/get-upload/get-upload.handler';
import { ImportAssetHandler } from './application/import-asset/import-asset.handler';
import { ImportNetwork } from './application/import-asset/import-network';
import { AssetListProjection } from './application/list-assets/asset-list.projection';
import { ListAssetsHandler } from './application/list-assets/list-assets.handler';
import { OpenAssetHandler } from './application/open-asset/open-asset.handler';
import { PrepareUploadHandler } from './application/prepare-upload/prepare-upload.handler';
import { ReceiveContentHandler } from './application/receive-content/receive-content.handler';
import { ReceiveSlots } from './application/receive-slots';
import { RegisterOutputHandler } from './application/register-output/register-output.handler';
import { ServeFileHandler } from './application/serve-file/serve-file.handler';
import { UploadSessions } from './application/upload-sessions';
import { UploadsProjection } from './application/uploads.projection';
import { UsableAssetsHandler } from './application/usable-assets/usable-assets.handler';
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
 * deletion and storage cleanup. Imports: the storage module and identity (`UploadTokens`).
 * Other contexts use `AssetRegistry` by importing this module.
 */
@Module({})
export class AssetsModule {
  static register(deps: ModuleDependencies, options: AssetsOptions = {}): DynamicModule {
    return {
      module: AssetsModule,
      imports: deps.imports,
      controllers: [UploadsController, AssetsController],
      providers: [
        { provide: UploadLimits, useValue: new UploadLimits(options.limits) },
        { provide: ImportNetwork, useValue: options.importNetwork ?? new DnsImportNetwork() },
        AssetLinks,
        AssetRecords,
        ReceiveSlots,
        AssetIngest,
        UploadSessions,
        PrepareUploadHandler,
        ReceiveContentHandler,
        CompleteUploadHandler,
        GetUploadHandler,
        ExpireUploadsHandler,
        DirectUploadHandler,
        ImportAssetHandler,
        ListAssetsHandler,
        GetAssetHandler,
        DeleteAssetHandler,
        ServeFileHandler,
        UsableAssetsHandler,
        OpenAssetHandler,
        RegisterOutputHandler,
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
