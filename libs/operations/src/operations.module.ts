import { Global, Module, RequestMethod, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { HealthController } from './api/health.controller';
import { ReplayHistoryProjection } from './application/replay/replay-history.projection';
import { ReplayService } from './application/replay/replay.service';
import { ADMIN_SERVER_OPTIONS, AdminServer } from './infrastructure/admin-server';
import { EventStoreMetrics } from './infrastructure/event-store-metrics';
import { HttpMetricsMiddleware } from './infrastructure/http-metrics.middleware';
import { Metrics } from './infrastructure/metrics';

export interface OperationsOptions {
  /**
   * The HTTP service: health routes, request metrics and (when ADMIN_TOKEN is set) the
   * admin endpoint on ADMIN_PORT. The admin CLI composes the module without it.
   */
  readonly http?: boolean;
}

/** Operating the service: replay, metrics, health, the internal admin endpoint. */
@Global()
@Module({})
export class OperationsModule implements NestModule {
  static forRoot(options: OperationsOptions = {}): DynamicModule {
    return {
      module: OperationsModule,
      controllers: options.http ? [HealthController] : [],
      providers: [
        Metrics,
        EventStoreMetrics,
        ReplayService,
        ReplayHistoryProjection,
        HttpMetricsMiddleware,
        AdminServer,
        { provide: ADMIN_SERVER_OPTIONS, useValue: { serve: options.http === true } },
      ],
      exports: [Metrics, ReplayService, AdminServer],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
