import express, { type NextFunction, type Request, type Response, type RequestHandler } from 'express';
import { sendError } from './error-response';

/**
 * Routes whose body is raw bytes, streamed by their controllers (never parsed): file
 * uploads, and supplier callbacks (their HMAC signature covers the exact bytes).
 */
export function isRawBodyRoute(req: Request): boolean {
  return (
    (req.method === 'POST' && /^\/v1\/uploads\/?$/.test(req.path)) ||
    (req.method === 'PUT' && /^\/v1\/uploads\/[^/]+\/content\/?$/.test(req.path)) ||
    (req.method === 'POST' && /^\/v1\/supplier-callbacks\/[^/]+\/?$/.test(req.path))
  );
}

/**
 * JSON and form bodies, with parse and size errors answered in the spec's error shape
 * (never Express's HTML page).
 */
export function bodyParsers(limit: number): RequestHandler {
  const json = express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
  const form = express.urlencoded({ limit: 65_536, extended: false });
  return (req: Request, res: Response, next: NextFunction) => {
    if (isRawBodyRoute(req)) return next();
    json(req, res, (err?: unknown) => {
      if (err) return parserError(err, res);
      form(req, res, (err2?: unknown) => (err2 ? parserError(err2, res) : next()));
    });
  };
}

function parserError(err: unknown, res: Response): void {
  const e = err as { type?: string; status?: number };
  if (e.type === 'entity.too.large') return sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'request body is too large');
  if (e.type === 'entity.parse.failed') return sendError(res, 400, 'VALIDATION_ERROR', 'request body is not valid JSON');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported body encoding or charset');
  }
  return sendError(res, e.status && e.status < 500 ? e.status : 400, 'VALIDATION_ERROR', 'request body could not be read');
}
