import type { DynamicModule } from '@nestjs/common';
import type { AppConfig } from '@gensvc/config';
import type { Clock } from '@gensvc/kernel';
import { StorageModule } from '@gensvc/storage';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { WalletModule } from '@gensvc/wallet';
import { VoicesModule } from '@gensvc/voices';
import { AssetsModule, type AssetsOptions } from '@gensvc/assets';
import { QuotingModule } from '@gensvc/quoting';
import { SuppliersModule } from '@gensvc/suppliers';
import { TasksModule } from '@gensvc/tasks';
import { OperationsModule, type OperationsOptions } from '@gensvc/operations';
import { NotificationsModule } from '@gensvc/notifications';
import { SharedCountersModule } from './rate-limit/rate-limit.module';

export interface ContextOverrides {
  clock?: Clock;
  /** Test hooks of the assets context (import network, shorter time limits). */
  assets?: AssetsOptions;
}

/** The context modules of one application, each built once. */
export interface Contexts {
  readonly storage: DynamicModule;
  /** The counters every process shares (rate limits, failed sign-ins). */
  readonly counters: DynamicModule;
  readonly catalogue: DynamicModule;
  readonly identity: DynamicModule;
  readonly wallet: DynamicModule;
  readonly voices: DynamicModule;
  readonly assets: DynamicModule;
  readonly quoting: DynamicModule;
  readonly suppliers: DynamicModule;
  readonly tasks: DynamicModule;
  readonly operations: DynamicModule;
  readonly notifications: DynamicModule;
  /** All of the above, lower contexts first: what an application's root module imports. */
  readonly modules: readonly DynamicModule[];
}

/**
 * The one composition of the bounded-context modules, for the HTTP service and the admin CLI
 * alike (each adds only what is its own: the API its HTTP modules, guards and the operations
 * context's HTTP part). No module is global: each dynamic module is built once here and handed
 * to the modules that import it, so every context shares the one storage module (one instance
 * of each store) and gets another context's contract ports only from that context's module.
 * The order follows the context graph (docs/architecture.md), lower contexts first.
 */
export function composeContexts(config: AppConfig, options: { overrides?: ContextOverrides; operations?: OperationsOptions } = {}): Contexts {
  const overrides = options.overrides ?? {};
  const storage = StorageModule.forRoot(config, { clock: overrides.clock });
  const counters = SharedCountersModule.register({ imports: [storage] });
  const catalogue = CatalogueModule.register({ imports: [storage] });
  const identity = IdentityModule.register({ imports: [storage, counters] });
  const wallet = WalletModule.register({ imports: [storage] });
  const voices = VoicesModule.register({ imports: [storage, catalogue] });
  const assets = AssetsModule.register({ imports: [storage, identity] }, overrides.assets);
  const quoting = QuotingModule.register({ imports: [storage, catalogue, assets, voices] });
  const suppliers = SuppliersModule.register({ imports: [storage, catalogue, assets, voices] });
  const tasks = TasksModule.register({ imports: [storage, assets, voices, quoting, suppliers, wallet] });
  const operations = OperationsModule.register({ imports: [storage] }, options.operations);
  const notifications = NotificationsModule.register({ imports: [storage] });
  return {
    storage,
    counters,
    catalogue,
    identity,
    wallet,
    voices,
    assets,
    quoting,
    suppliers,
    tasks,
    operations,
    notifications,
    modules: [storage, counters, catalogue, identity, wallet, voices, assets, quoting, suppliers, tasks, operations, notifications],
  };
}
