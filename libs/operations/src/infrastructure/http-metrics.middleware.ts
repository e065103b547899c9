import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Metrics } from './metrics';

/** Counts and times every request of the public HTTP API by its route pattern. */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: Metrics) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Only the matched pattern is a label (bounded cardinality); unmatched paths share one.
      const pattern = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof pattern === 'string' ? `${req.baseUrl ?? ''}${pattern}` : 'unmatched';
      this.metrics.observeRequest(req.method, route, res.statusCode, seconds);
    });
    next();
  }
}
