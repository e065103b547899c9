import { ArgumentsHost, Catch, HttpException, HttpStatus, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '@gensvc/kernel';
import { sendError } from './error-response';
import { statusOf } from './error-status';

const BY_STATUS: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'INSUFFICIENT_SCOPE',
  404: 'NOT_FOUND',
  405: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  429: 'RATE_LIMITED',
};

/** The methods a path is served with (empty when no route has the path). */
export type AllowedMethods = (path: string) => string[];

/**
 * Maps every error to the spec's error object with the request id; never leaks internals.
 * A path that exists but not with the request's method answers 405 METHOD_NOT_ALLOWED with
 * `Allow`; a path that does not exist, 404.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly allowedMethods: AllowedMethods = () => [],
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof AppError) {
      const status = statusOf(exception);
      if (status >= 500) this.logger.error({ err: exception }, 'request failed');
      return sendError(res, status, exception.code, exception.message, { ...exception.headers });
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === HttpStatus.NOT_FOUND) {
        const req = host.switchToHttp().getRequest<Request>();
        const allowed = this.allowedMethods(req.path);
        if (allowed.length) {
          return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not served here; allowed: ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
        }
      }
      const code = BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_ERROR');
      const message = status === HttpStatus.NOT_FOUND ? 'no such route' : messageOf(exception);
      if (status >= 500) this.logger.error({ err: exception }, 'request failed');
      return sendError(res, status === 405 ? 404 : status, code, message);
    }
    const e = exception as { type?: string; status?: number };
    if (e?.type === 'entity.too.large') return sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'request body is too large');
    this.logger.error({ err: exception }, 'unhandled error');
    return sendError(res, 500, 'INTERNAL', 'internal error');
  }
}

function messageOf(e: HttpException): string {
  const body = e.getResponse();
  if (typeof body === 'string') return body;
  const m = (body as { message?: unknown }).message;
  if (Array.isArray(m)) return m.join('; ');
  return typeof m === 'string' ? m : e.message;
}
