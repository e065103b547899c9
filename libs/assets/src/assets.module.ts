import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/shared';
import { AssetRegistry } from './contracts/asset-registry';
import { UploadLimits } from './domain/limits';
import { AssetLinks } from './application/assets/asset-links';
import { AssetRecords } from './application/assets/asset-records';
import { AssetRegistryService } from './application/assets/asset-registry.service';
import { AssetsService } from './application/assets/assets.service';
import { StorageCleanupReactor } from './application/background/storage-cleanup.reactor';
import { UploadAssetsReactor } from './application/background/upload-assets.reactor';
import { UploadExpiryJob } from './application/background/upload-expiry.job';
import { ImportNetwork } from './application/import/import-network';
import { ImportService } from './application/import/import.service';
import { AssetListProjection, TaskAssetRefsProjection, UploadsProjection } from './application/read-models';
import { FileServer } from './application/serve-file/file-server';
import { ReceiveSlots } from './application/uploads/receive-slots';
import { UploadsService } from './application/uploads/uploads.service';
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
