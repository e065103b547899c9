import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, SubscriptionEngine, createLogger } from '@gensvc/shared';
import { AppModule, type AppOverrides } from './app.module';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { consoleStatic } from './console/console-static';
import { bodyParsers } from './http/body-parsers';
import { PinoNestLogger } from './http/pino-nest-logger';
import { requestContextMiddleware } from './http/request-context.middleware';
import { createValidationPipe } from './http/validation';

/**
 * Builds the HTTP application (used by main.ts and by the e2e tests): middleware, pipes,
 * error filter, then starts the subscriptions (projections caught up before it returns).
 */
export async function createApp(config: AppConfig, overrides: AppOverrides = {}): Promise<NestExpressApplication> {
  const logger = createLogger(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, overrides), new ExpressAdapter(), {
    bodyParser: false,
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('etag', false);
  app.use(requestContextMiddleware(logger));
  app.use(consoleStatic(config.publicBaseUrl));
  app.use(bodyParsers(config.jsonBodyLimit));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter(logger));
  app.enableShutdownHooks();
  await app.init();
  await app.get(SubscriptionEngine).start();
  return app;
}
