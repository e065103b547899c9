import cors from 'cors';
import type { RequestHandler } from 'express';

/** Paths browsers of other origins may call: the API, the OAuth token endpoints and their metadata. */
export const CORS_PATHS = ['/v1', '/token', '/revoke', '/.well-known/oauth-authorization-server'];

/**
 * CORS (CONTRACT §13): any origin, bearer credentials only (never cookies, so no
 * Access-Control-Allow-Credentials), preflights answered 204 and cached 10 minutes; the
 * request id, Retry-After and the rate-limit headers are readable by the page.
 */
export function corsMiddleware(): RequestHandler {
  return cors({
    origin: '*',
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-Upload-Token', 'X-Filename', 'Range', 'If-Range', 'If-None-Match', 'Prefer', 'Last-Event-ID'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate', 'Content-Range', 'Content-Disposition', 'ETag', 'Preference-Applied', 'Location'],
    maxAge: 600,
    optionsSuccessStatus: 204,
    preflightContinue: false,
  });
}
