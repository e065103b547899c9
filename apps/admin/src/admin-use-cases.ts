import { Injectable } from '@nestjs/common';
import { AppConfig } from '@gensvc/config';
import { Clock } from '@gensvc/kernel';
import { SubscriptionEngine } from '@gensvc/event-sourcing';
import { DiffCatalogueHandler, PublishCatalogueHandler, ShowCatalogueHandler } from '@gensvc/catalogue';
import { CreateAccountHandler, CreateApiKeyHandler, GetAccountHandler, RegisterOAuthClientHandler, RevokeApiKeyHandler } from '@gensvc/identity';
import { MarginReportHandler, ReplayService } from '@gensvc/operations';
import { ChannelStatus, SupplierSettings } from '@gensvc/suppliers';
import { WalletCommands } from '@gensvc/wallet';

/**
 * Everything the admin commands call, injected from the modules `AdminModule` composes (each
 * exports what is named here): the commands receive this object and look nothing up.
 */
@Injectable()
export class AdminUseCases {
  constructor(
    readonly config: AppConfig,
    readonly clock: Clock,
    readonly engine: SubscriptionEngine,
    readonly createAccount: CreateAccountHandler,
    readonly getAccount: GetAccountHandler,
    readonly createApiKey: CreateApiKeyHandler,
    readonly revokeApiKey: RevokeApiKeyHandler,
    readonly registerOAuthClient: RegisterOAuthClientHandler,
    readonly wallet: WalletCommands,
    readonly publishCatalogue: PublishCatalogueHandler,
    readonly showCatalogue: ShowCatalogueHandler,
    readonly diffCatalogue: DiffCatalogueHandler,
    readonly supplierSettings: SupplierSettings,
    readonly channels: ChannelStatus,
    readonly replay: ReplayService,
    readonly marginReport: MarginReportHandler,
  ) {}
}
