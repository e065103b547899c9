import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from '@gensvc/config';
import { composeContexts } from '../../api/src/compose-contexts';
import { AdminUseCases } from './admin-use-cases';

/**
 * The admin CLI's application: the context modules exactly as the API composes them
 * (`composeContexts`, so a replay rebuilds every projection and every provider the contexts
 * inject is there), with no HTTP and no subscriptions; background jobs run only where the
 * subscriptions run, so none starts here. Its one provider, `AdminUseCases`, hands the
 * commands what they call.
 */
@Module({})
export class AdminModule {
  static forRoot(config: AppConfig): DynamicModule {
    const contexts = composeContexts(config);
    return {
      module: AdminModule,
      imports: [...contexts.modules],
      providers: [AdminUseCases],
    };
  }
}

/** The admin application on `config`, and the use cases its commands call, taken from its root module. */
export async function createAdminApp(
  config: AppConfig,
  options: Parameters<typeof NestFactory.createApplicationContext>[1] = {},
): Promise<{ app: INestApplicationContext; use: AdminUseCases }> {
  const root = AdminModule.forRoot(config);
  const app = await NestFactory.createApplicationContext(root, options);
  return { app, use: app.select(root).get(AdminUseCases, { strict: true }) };
}
