import 'reflect-metadata';
import { DiscoveryService, NestFactory, Reflector } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, runsBackgroundWork, servesApi } from '@gensvc/config';
import { SubscriptionEngine } from '@gensvc/event-sourcing';
import { createLogger } from '@gensvc/logging';
import { discoverRoutes } from '@gensvc/http';
import { DeliveryMetrics } from '@gensvc/notifications';
import { ChannelStatus } from '@gensvc/suppliers';
import { Metrics } from '@gensvc/operations';
import { AppModule, type AppOverrides } from './app.module';
import type { NextFunction, Request, Response } from 'express';
import { AllExceptionsFilter, type AllowedMethods } from './http/all-exceptions.filter';
import { consoleStatic } from './console/console-static';
import { sendError } from './http/error-response';
import { bodyParsers } from './http/body-parsers';
import { answerClientErrors } from './http/client-errors';
import { CORS_PATHS, corsMiddleware } from './http/cors';
import { PinoNestLogger } from './http/pino-nest-logger';
import { DEFAULT_DEADLINES, applyServerDeadlines, bodyDeadline } from './http/body-deadline';
import { noStoreForCredentials } from './http/no-store';
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
  const deadlines = { ...DEFAULT_DEADLINES, ...overrides.deadlines };
  applyServerDeadlines(app.getHttpServer(), deadlines);
  answerClientErrors(app.getHttpServer(), logger);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('etag', false);
  app.use(requestContextMiddleware(logger));
  app.use(noStoreForCredentials);
  if (!servesApi(config.processRole)) app.use(healthOnly);
  app.use(CORS_PATHS, corsMiddleware());
  app.use(consoleStatic(config.publicBaseUrl));
  let allowed: AllowedMethods = () => [];
  app.use(bodyDeadline(deadlines));
  app.use(bodyParsers(config.jsonBodyLimit, (path) => allowed(path)));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter(logger, (path) => allowed(path)));
  app.enableShutdownHooks();
  await app.init();
  // The webhook metrics live in the notifications context's registry; serve them with the rest.
  const metrics = app.get(Metrics);
  for (const m of app.get(DeliveryMetrics).all()) metrics.registry.registerMetric(m);
  for (const m of app.get(ChannelStatus).all()) metrics.registry.registerMetric(m);
  allowed = allowedMethodsOf(app);
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

/** The methods each routed path answers (GET implies HEAD), for 405 answers with `Allow`. */
function allowedMethodsOf(app: NestExpressApplication): AllowedMethods {
  const byPattern = new Map<string, { re: RegExp; methods: Set<string> }>();
  for (const r of discoverRoutes(app.get(DiscoveryService), app.get(Reflector))) {
    const source = '^' + r.path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/') + '/?$';
    const entry = byPattern.get(source) ?? { re: new RegExp(source), methods: new Set<string>() };
    entry.methods.add(r.method);
    if (r.method === 'GET') entry.methods.add('HEAD');
    byPattern.set(source, entry);
  }
  const patterns = [...byPattern.values()];
  return (path) => {
    const methods = new Set<string>();
    for (const p of patterns) if (p.re.test(path)) for (const m of p.methods) methods.add(m);
    return [...methods];
  };
}
