import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig, Clock, SharedCounters, StorageModule } from '@gensvc/shared';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { OperationsModule } from '@gensvc/operations';
import { McpModule } from './mcp/mcp.module';
import { ProjectorThread } from './projector/projector-thread';
import { OpenApiModule } from './openapi/openapi.module';
import { SharedCountersModule } from './rate-limit/rate-limit.module';
import { RateLimitGuard, SharedCountersThrottlerStorage, throttlerOptions } from './rate-limit/rate-limit.guard';
import { AssetsModule, type AssetsOptions } from '@gensvc/assets';
import { VoicesModule } from '@gensvc/voices';
import { SuppliersModule } from '@gensvc/suppliers';
import { QuotingModule } from '@gensvc/quoting';
import { TasksModule } from '@gensvc/tasks';
import { WalletModule } from '@gensvc/wallet';
import { NotificationsModule } from '@gensvc/notifications';

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
      imports: [
        StorageModule.forRoot(config, overrides),
        SharedCountersModule,
        ThrottlerModule.forRootAsync({ inject: [AppConfig, SharedCounters], useFactory: (c: AppConfig, counters: SharedCounters) => throttlerOptions(c, new SharedCountersThrottlerStorage(counters)) }),
        CqrsModule.forRoot(), CatalogueModule, IdentityModule, OperationsModule.forRoot({ http: true }), OpenApiModule, AssetsModule.forRoot(overrides.assets), VoicesModule, SuppliersModule, WalletModule, QuotingModule, TasksModule, McpModule, NotificationsModule],
      // Registered on the root module, so it runs before the access guard of the identity context.
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }, ProjectorThread],
    };
  }
}
