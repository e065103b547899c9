import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from './error-response';

/** How long a request may take to arrive (CONTRACT §17). */
export interface RequestDeadlines {
  /** A request body must arrive within this long of its headers (30 s). */
  readonly bodyMs: number;
  /**
   * File bodies (direct upload, the content write of a prepared upload) have their own time
   * limit (60 s, ended early when too slow); this backstop only ends one nobody reads.
   */
  readonly uploadBodyMs: number;
  /** The headers must arrive within this long of the connection's first byte (Node's headersTimeout). */
  readonly headersMs: number;
}

export const DEFAULT_DEADLINES: RequestDeadlines = { bodyMs: 30_000, uploadBodyMs: 75_000, headersMs: 30_000 };

const isFileBody = (req: Request): boolean =>
  (req.method === 'POST' && /^\/v1\/uploads\/?$/.test(req.path)) || (req.method === 'PUT' && /^\/v1\/uploads\/[^/]+\/content\/?$/.test(req.path));

/**
 * Ends a request whose body has not fully arrived `bodyMs` after its headers (a body sent a
 * byte at a time would otherwise hold a connection, and its parser, for minutes): 408
 * REQUEST_TIMEOUT in the error shape, then the connection is closed. Runs before the body
 * parsers, for every route (JSON, forms, supplier callbacks); file bodies get `uploadBodyMs`.
 */
export function bodyDeadline(deadlines: RequestDeadlines) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'].trim() !== '0');
    if (!hasBody || req.complete) return next();
    const ms = isFileBody(req) ? deadlines.uploadBodyMs : deadlines.bodyMs;
    const timer = setTimeout(() => {
      if (req.complete || res.writableEnded) return;
      res.once('finish', () => req.socket.destroy());
      sendError(res, 408, 'REQUEST_TIMEOUT', `the request body did not arrive within ${Math.round(ms / 1000)} seconds of its headers`, { Connection: 'close' });
    }, ms);
    timer.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}

/**
 * Node's own limits on the connection: headers within `headersMs`, the whole request within
 * the longest body deadline and a margin (a backstop; the middleware above answers first),
 * checked every second instead of every 30.
 */
export function applyServerDeadlines(server: Server, deadlines: RequestDeadlines): void {
  server.headersTimeout = deadlines.headersMs;
  server.requestTimeout = Math.max(deadlines.bodyMs, deadlines.uploadBodyMs) + deadlines.headersMs + 5_000;
  // Read when the server starts listening (Node's option of createServer, not in its typings as a property).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1_000;
}
