import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Metrics } from './metrics';

/** Requests that receive file bytes: direct upload, import, and the content write of a prepared upload. */
export function isUploadRequest(method: string, path: string): boolean {
  return (method === 'POST' && /^\/v1\/uploads(\/import)?\/?$/.test(path)) || (method === 'PUT' && /^\/v1\/uploads\/[^/]+\/content\/?$/.test(path));
}

/**
 * Counts and times every request of the public HTTP API by its route pattern, and counts
 * uploads in flight from the moment their request arrives until its connection is done.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: Metrics) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    const path = req.originalUrl.split('?')[0];
    if (isUploadRequest(req.method, path)) {
      const done = this.metrics.trackUpload();
      res.once('close', done);
    }
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
