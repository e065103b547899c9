import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig } from '@gensvc/config';
import { composeContexts } from '../../api/src/compose-contexts';

/**
 * The admin CLI's application: the context modules exactly as the API composes them
 * (`composeContexts`, so a replay rebuilds every projection and every provider the contexts
 * inject is there), with no HTTP and no subscriptions; background jobs run only where the
 * subscriptions run, so none starts here.
 */
@Module({})
export class AdminModule {
  static forRoot(config: AppConfig): DynamicModule {
    const contexts = composeContexts(config);
    return {
      module: AdminModule,
      imports: [...contexts.modules, CqrsModule.forRoot()],
    };
  }
}
