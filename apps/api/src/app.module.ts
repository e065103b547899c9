import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig, Clock, StorageModule } from '@gensvc/shared';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { OperationsModule } from '@gensvc/operations';
import { McpModule } from './mcp/mcp.module';
import { OpenApiModule } from './openapi/openapi.module';
import { AssetsModule, type AssetsOptions } from '@gensvc/assets';
import { VoicesModule } from '@gensvc/voices';
import { SuppliersModule } from '@gensvc/suppliers';
import { QuotingModule } from '@gensvc/quoting';
import { TasksModule } from '@gensvc/tasks';
import { WalletModule } from '@gensvc/wallet';

export interface AppOverrides {
  clock?: Clock;
  /** Test hooks of the assets context (import network, shorter time limits). */
  assets?: AssetsOptions;
}

/** The HTTP service: composes the bounded-context modules; owns no business logic. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: AppOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [StorageModule.forRoot(config, overrides), CqrsModule.forRoot(), CatalogueModule, IdentityModule, OperationsModule.forRoot({ http: true }), OpenApiModule, AssetsModule.forRoot(overrides.assets), VoicesModule, SuppliersModule, WalletModule, QuotingModule, TasksModule, McpModule],
    };
  }
}
