import express, { type NextFunction, type Request, type Response, type RequestHandler } from 'express';
import { sendError } from './error-response';
import { MAX_JSON_DEPTH, forbiddenKeyPath, isJsonMediaType, jsonDepth } from './json-body';

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

/** Routes that take HTML form bodies (the OAuth pages and endpoints, RFC 6749 / 7009). */
export function isFormRoute(req: Request): boolean {
  return req.method === 'POST' && /^\/(authorize|token|revoke)\/?$/.test(req.path);
}

/** Whether the request carries a body: a non-zero Content-Length, or chunked transfer. */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length.trim() !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const tooDeep = () => Object.assign(new Error(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`), { status: 400, type: 'entity.too.deep' });
const notUtf8 = () => Object.assign(new Error('JSON bodies are UTF-8'), { status: 415, type: 'charset.unsupported' });

/** The methods a path is routed with (empty when no route has the path). */
export type RoutedMethods = (path: string) => readonly string[];

/**
 * Request bodies: JSON everywhere (UTF-8 only, at most `limit` bytes and MAX_JSON_DEPTH levels
 * deep, without `__proto__` or `constructor` keys), HTML forms only on the OAuth routes, raw
 * bytes only on the upload and callback routes. Any other body is 415
 * UNSUPPORTED_MEDIA_TYPE before a controller runs, so nothing changes. Parse and size
 * errors are answered in the spec's error shape (never Express's HTML page).
 *
 * A request whose method the path is not routed with (`routedMethods`) is not read at
 * all: routing answers it 405 with `Allow`, whatever body it carries.
 */
export function bodyParsers(limit: number, routedMethods: RoutedMethods = () => []): RequestHandler {
  const json = express.json({
    limit,
    strict: true,
    type: () => true,
    // Runs on the bytes as they arrived (after any Content-Encoding is undone), with the charset
    // the parser would decode them with. Only UTF-8 is taken: in UTF-8 every `[`, `{` and `"` is
    // that very byte, so the depth scan of the raw bytes is the depth of the text. Any other
    // charset (UTF-7's `+AFs-`, UTF-16, UTF-32) would hide brackets from the scan: 415.
    verify: (_req, _res, buf, encoding) => {
      if (encoding !== 'utf-8') throw notUtf8();
      if (jsonDepth(buf, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep();
    },
  });
  const form = express.urlencoded({ limit: 65_536, extended: false, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    // Only methods that take a body are read; any other (GET, TRACE, ...) goes on to routing.
    if (isRawBodyRoute(req) || !BODY_METHODS.has(req.method) || !hasBody(req)) return next();
    const routed = routedMethods(req.path);
    if (routed.length > 0 && !routed.includes(req.method)) return next();
    const type = req.headers['content-type'];
    if (isJsonMediaType(type)) {
      return json(req, res, (err?: unknown) => {
        if (err) return parserError(err, res);
        const bad = forbiddenKeyPath(req.body);
        if (bad) return sendError(res, 400, 'VALIDATION_ERROR', `${bad}: unknown field`);
        next();
      });
    }
    if (isFormRoute(req) && type?.split(';', 1)[0].trim().toLowerCase() === 'application/x-www-form-urlencoded') {
      return form(req, res, (err?: unknown) => (err ? parserError(err, res) : next()));
    }
    return sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', type ? `Content-Type ${type.split(';', 1)[0].trim()} is not accepted here: send application/json` : 'the body has no Content-Type: send application/json');
  };
}

function parserError(err: unknown, res: Response): void {
  const e = err as { type?: string; status?: number; message?: string };
  if (e.type === 'entity.too.large') return sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'request body is too large');
  if (e.type === 'entity.too.deep') return sendError(res, 400, 'VALIDATION_ERROR', e.message ?? 'request body is nested too deeply');
  if (e.type === 'entity.parse.failed') return sendError(res, 400, 'VALIDATION_ERROR', 'request body is not valid JSON');
  if (e.type === 'charset.unsupported') {
    return sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'JSON bodies are UTF-8: send Content-Type application/json with charset=utf-8 or no charset');
  }
  if (e.type === 'encoding.unsupported') return sendError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Encoding');
  return sendError(res, e.status && e.status < 500 ? e.status : 400, 'VALIDATION_ERROR', 'request body could not be read');
}
