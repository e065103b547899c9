import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { AppConfig, ConsumerGroups, LeaseStore, type ModuleDependencies } from '@gensvc/shared';
import { SupplierVoiceRemover } from '@gensvc/voices/contracts';
import { SupplierGateway } from './contracts/supplier-gateway';
import { SupplierCallbacksController } from './api/supplier-callbacks.controller';
import { JobResources } from './application/job-outputs';
import { SupplierCallbacks } from './application/supplier-callbacks';
import { SupplierChannels } from './application/supplier-channel';
import { ChannelVoiceRemover, SupplierChannelRegistry } from './application/supplier-channel-registry';
import { SupplierGatewayService } from './application/supplier-gateway.service';
import { SupplierJobClaims, supplierJobClaims } from './application/supplier-job-claims';
import { SupplierJobRunner } from './application/supplier-job-runner';
import { SupplierJobWorker } from './application/supplier-job-worker.reactor';
import { SupplierJobsProjection } from './application/supplier-jobs.projection';
import { LocalSupplierChannel } from './infrastructure/local/local-supplier.channel';
import { LocalSupplierControls } from './infrastructure/local/local-supplier.controls';
import { loadSupplierSettings, SupplierSettings } from './supplier-settings';

const PROVIDERS: Provider[] = [
  { provide: SupplierSettings, useFactory: (config: AppConfig) => loadSupplierSettings(config), inject: [AppConfig] },
  LocalSupplierControls,
  JobResources,
  LocalSupplierChannel,
  { provide: SupplierChannels, useClass: SupplierChannelRegistry },
  {
    // EventStoreDB: a persistent subscription with competing consumers; embedded: leases.
    provide: SupplierJobClaims,
    useFactory: supplierJobClaims,
    inject: [ConsumerGroups, LeaseStore, SupplierSettings],
  },
  SupplierJobRunner,
  SupplierJobWorker,
  SupplierJobsProjection,
  SupplierCallbacks,
  SupplierGatewayService,
  { provide: SupplierGateway, useExisting: SupplierGatewayService },
  { provide: SupplierVoiceRemover, useClass: ChannelVoiceRemover },
];

/**
 * Suppliers context: supplier jobs (stream `supplierjob-<task_id>`), the built-in local
 * supplier, external HTTP suppliers with callbacks and polling, and the job runner.
 * Imports: the storage module, the catalogue (`Catalogue`), voices (`VoiceRegistry`) and
 * assets (`AssetRegistry`, looked up when a job first needs it).
 */
@Module({})
export class SuppliersModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: SuppliersModule,
      imports: deps.imports,
      controllers: [SupplierCallbacksController],
      providers: PROVIDERS,
      exports: [SupplierGateway, LocalSupplierControls, SupplierSettings, SupplierVoiceRemover],
    };
  }
}
