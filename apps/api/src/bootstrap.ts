import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, SubscriptionEngine, createLogger, runsBackgroundWork, servesApi } from '@gensvc/shared';
import { AppModule, type AppOverrides } from './app.module';
import type { NextFunction, Request, Response } from 'express';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { consoleStatic } from './console/console-static';
import { sendError } from './http/error-response';
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
  if (!servesApi(config.processRole)) app.use(healthOnly);
  app.use(consoleStatic(config.publicBaseUrl));
  app.use(bodyParsers(config.jsonBodyLimit));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter(logger));
  app.enableShutdownHooks();
  await app.init();
  // Every role projects (reads and read-your-writes need the read models); reactors run
  // only where background work runs.
  await app.get(SubscriptionEngine).start({ reactors: runsBackgroundWork(config.processRole) });
  return app;
}

/** A worker serves only its health (metrics are on the admin port). */
function healthOnly(req: Request, res: Response, next: NextFunction): void {
  if (req.path === '/health/live' || req.path === '/health/ready') return next();
  sendError(res, 404, 'NOT_FOUND', 'this process serves only /health/live and /health/ready (PROCESS_ROLE=worker)');
}
