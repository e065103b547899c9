import { Module, RequestMethod, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import type { ErrorCode } from '@gensvc/kernel';
import type { ModuleDependencies } from '@gensvc/http';
import { HealthController } from './api/health.controller';
import { MarginProjection } from './application/margin-report/margin.projection';
import { MarginReportHandler } from './application/margin-report/margin-report.handler';
import { ReplayHistoryProjection } from './application/replay/replay-history.projection';
import { ReplayService } from './application/replay/replay.service';
import { ADMIN_SERVER_OPTIONS, AdminServer } from './infrastructure/admin-server';
import { EventStoreMetrics } from './infrastructure/event-store-metrics';
import { HttpMetricsMiddleware } from './infrastructure/http-metrics.middleware';
import { Metrics } from './infrastructure/metrics';

export type OperationsOptions =
  | {
      /**
       * The HTTP service: health routes, request metrics and (when ADMIN_TOKEN is set) the
       * admin endpoint on ADMIN_PORT. The admin CLI composes the module without it.
       */
      readonly http: true;
      /** The HTTP status of an error code, for the admin endpoint: the API's table. */
      readonly errorStatus: (code: ErrorCode) => number;
    }
  | { readonly http?: false };

/**
 * Operating the service: replay, metrics, health, the internal admin endpoint, the margin
 * report (a read model of settlements and route costs). Imports: the storage module.
 */
@Module({})
export class OperationsModule implements NestModule {
  static register(deps: ModuleDependencies, options: OperationsOptions = {}): DynamicModule {
    return {
      module: OperationsModule,
      imports: deps.imports,
      controllers: options.http ? [HealthController] : [],
      providers: [
        Metrics,
        EventStoreMetrics,
        ReplayService,
        ReplayHistoryProjection,
        MarginProjection,
        MarginReportHandler,
        HttpMetricsMiddleware,
        AdminServer,
        {
          provide: ADMIN_SERVER_OPTIONS,
          useValue: options.http ? { serve: true, errorStatus: options.errorStatus } : { serve: false, errorStatus: () => 500 },
        },
      ],
      exports: [Metrics, ReplayService, AdminServer, MarginReportHandler],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
