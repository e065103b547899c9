import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RequestContexts } from '@gensvc/event-sourcing';

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The path as the access log writes it: a supplier callback address carries its task's
 * secret token as the last segment (`/v1/supplier-callbacks/<token>`), which is left out.
 */
export function loggedPath(path: string): string {
  return path.replace(/^(\/v1\/supplier-callbacks\/)[^/]+/i, '$1[redacted]');
}

/**
 * First middleware of every request: takes a well-formed client `X-Request-Id` or makes
 * one, sets it on the response, runs the rest of the request inside its context, and
 * writes one access-log line (path only: query strings may carry link signatures; a
 * callback token in the path is redacted).
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
        { request_id: requestId, method: req.method, path: loggedPath(req.path), status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    RequestContexts.run({ requestId }, () => next());
  };
}
