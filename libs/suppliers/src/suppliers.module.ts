import { Module, type DynamicModule } from '@nestjs/common';
import { AppConfig } from '@gensvc/config';
import { ConsumerGroups, LeaseStore } from '@gensvc/event-sourcing';
import { type ModuleDependencies } from '@gensvc/http';
import { SupplierGateway } from './contracts/supplier-gateway';
import { SupplierCallbacksController } from './api/supplier-callbacks.controller';
import { CancelJobHandler } from './application/cancel-job/cancel-job.handler';
import { OpenJobsHandler } from './application/job-list/open-jobs.handler';
import { SupplierJobsProjection } from './application/job-list/supplier-jobs.projection';
import { JobResources } from './application/job-outputs';
import { ReceiveCallbackHandler } from './application/receive-callback/receive-callback.handler';
import { SubmitJobHandler } from './application/submit-job/submit-job.handler';
import { SupplierJobClaims, supplierJobClaims } from './application/submit-job/supplier-job-claims';
import { SupplierJobRunner } from './application/submit-job/supplier-job-runner';
import { SupplierJobWorker } from './application/submit-job/supplier-job-worker.reactor';
import { SupplierChannels } from './application/supplier-channel';
import { SupplierChannelRegistry } from './application/supplier-channel-registry';
import { ChannelMetrics, ChannelStatus } from './application/providers/channel-status';
import { ProviderChannels } from './application/providers/provider-channels';
import { RouteProber } from './application/providers/route-prober';
import { PROVIDER_ADAPTERS } from './infrastructure/providers';
import { SupplierGatewayService } from './application/supplier-gateway/supplier-gateway.service';
import { ChannelVoiceRemover } from './application/voice-deletion/channel-voice-remover';
import { VoiceDeletion } from './application/voice-deletion/voice-deletion';
import { VoiceDeletionReactor } from './application/voice-deletion/voice-deletion.reactor';
import { LocalSupplierChannel } from './infrastructure/local/local-supplier.channel';
import { LocalSupplierControls } from './infrastructure/local/local-supplier.controls';
import { loadSupplierSettings, SupplierSettings } from './supplier-settings';

/**
 * Suppliers context: supplier jobs (stream `supplierjob-<task_id>`), the built-in local
 * supplier, external HTTP suppliers with callbacks and polling, provider channels with
 * routes, probes and budgets (`application/providers/`), and the job runner.
 * Imports: the storage module, the catalogue (`Catalogue`), voices (`VoiceRegistry`,
 * `VoiceDeletions`: the voice deletion reactor removes a voice at its channel and completes
 * the deletion) and assets (`AssetRegistry`).
 */
@Module({})
export class SuppliersModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: SuppliersModule,
      imports: deps.imports,
      controllers: [SupplierCallbacksController],
      providers: [
        { provide: SupplierSettings, useFactory: (config: AppConfig) => loadSupplierSettings(config), inject: [AppConfig] },
        LocalSupplierControls,
        JobResources,
        LocalSupplierChannel,
        ChannelMetrics,
        {
          provide: ProviderChannels,
          useFactory: (settings: SupplierSettings, leases: LeaseStore, metrics: ChannelMetrics) =>
            new ProviderChannels(settings.providers.values(), PROVIDER_ADAPTERS, leases, (...a) => metrics.observe(...a)),
          inject: [SupplierSettings, LeaseStore, ChannelMetrics],
        },
        RouteProber,
        ChannelStatus,
        { provide: SupplierChannels, useClass: SupplierChannelRegistry },
        {
          // EventStoreDB: a persistent subscription with competing consumers; embedded: leases.
          provide: SupplierJobClaims,
          useFactory: supplierJobClaims,
          inject: [ConsumerGroups, LeaseStore, SupplierSettings],
        },
        SupplierJobRunner,
        SupplierJobWorker,
        SubmitJobHandler,
        CancelJobHandler,
        SupplierJobsProjection,
        OpenJobsHandler,
        ReceiveCallbackHandler,
        SupplierGatewayService,
        { provide: SupplierGateway, useExisting: SupplierGatewayService },
        ChannelVoiceRemover,
        VoiceDeletion,
        VoiceDeletionReactor,
      ],
      exports: [SupplierGateway, LocalSupplierControls, SupplierSettings, ChannelStatus],
    };
  }
}
