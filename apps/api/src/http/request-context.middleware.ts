import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RequestContexts } from '@gensvc/shared';

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * First middleware of every request: takes a well-formed client `X-Request-Id` or makes
 * one, sets it on the response, runs the rest of the request inside its context, and
 * writes one access-log line (path only: query strings may carry link signatures).
 */
export function requestContextMiddleware(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const sent = req.header('x-request-id');
    const requestId = sent && CLIENT_ID.test(sent) ? sent : `req_${randomUUID().replace(/-/g, '')}`;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { request_id: requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    RequestContexts.run({ requestId }, () => next());
  };
}
