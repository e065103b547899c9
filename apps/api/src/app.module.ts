import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig, Clock, StorageModule } from '@gensvc/shared';
import { CatalogueModule } from '@gensvc/catalogue';
import { IdentityModule } from '@gensvc/identity';
import { OperationsModule } from '@gensvc/operations';

export interface AppOverrides {
  clock?: Clock;
}

/** The HTTP service: composes the bounded-context modules; owns no business logic. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: AppOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [StorageModule.forRoot(config, overrides), CqrsModule.forRoot(), CatalogueModule, IdentityModule, OperationsModule.forRoot({ http: true })],
    };
  }
}
