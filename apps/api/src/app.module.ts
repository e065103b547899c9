import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '@gensvc/config';
import { Clock } from '@gensvc/kernel';
import { SharedCounters } from '@gensvc/http';
import { StorageModule } from '@gensvc/storage';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { OperationsModule } from '@gensvc/operations';
import type { RequestDeadlines } from './http/body-deadline';
import { errorStatus } from './http/error-status';
import { McpModule } from './mcp/mcp.module';
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
  /** Shorter request deadlines for tests (apps/api/src/http/body-deadline.ts; never shortened in production). */
  deadlines?: Partial<RequestDeadlines>;
}

/**
 * The HTTP service: composes the bounded-context modules; owns no business logic. No module
 * is global: each dynamic module below is built once and handed to the modules that import
 * it, so every context shares the one storage module (one instance of each store) and gets
 * another context's contract ports only where it is composed with that context's module. The
 * order follows the context graph (docs/architecture.md), lower contexts first.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: AppOverrides = {}): DynamicModule {
    const storage = StorageModule.forRoot(config, overrides);
    const counters = SharedCountersModule.register({ imports: [storage] });
    const catalogue = CatalogueModule.register({ imports: [storage] });
    const identity = IdentityModule.register({ imports: [storage, counters] });
    const wallet = WalletModule.register({ imports: [storage] });
    const voices = VoicesModule.register({ imports: [storage, catalogue] });
    const assets = AssetsModule.register({ imports: [storage, identity] }, overrides.assets);
    const quoting = QuotingModule.register({ imports: [storage, catalogue, assets, voices] });
    const suppliers = SuppliersModule.register({ imports: [storage, catalogue, assets, voices] });
    const tasks = TasksModule.register({ imports: [storage, assets, voices, quoting, suppliers, wallet] });
    const operations = OperationsModule.register({ imports: [storage] }, { http: true, errorStatus });
    const notifications = NotificationsModule.register({ imports: [storage] });
    return {
      module: AppModule,
      imports: [
        storage,
        counters,
        ThrottlerModule.forRootAsync({
          imports: [storage, counters],
          inject: [AppConfig, SharedCounters],
          useFactory: (c: AppConfig, shared: SharedCounters) => throttlerOptions(c, new SharedCountersThrottlerStorage(shared)),
        }),
        CqrsModule.forRoot(),
        catalogue,
        identity,
        operations,
        OpenApiModule.register({ imports: [storage] }),
        assets,
        voices,
        suppliers,
        wallet,
        quoting,
        tasks,
        McpModule.register({ imports: [storage, identity] }),
        notifications,
      ],
      // Registered on the root module, so it runs before the access guard of the identity
      // context; it injects the configuration, the counters and identity's Authenticator.
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    };
  }
}
