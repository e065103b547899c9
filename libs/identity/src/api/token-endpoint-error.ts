import type { Logger } from '@nestjs/common';
import type { Response } from 'express';
import oauth2orize from 'oauth2orize';
import { AppError } from '@gensvc/kernel';
import { OAuthGrantError } from '../domain/oauth-grant';

/** An error of the token or revocation endpoint (RFC 6749 §5.2). */
export class TokenEndpointError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Answers a failed token or revocation request as RFC 6749 §5.2 says: `{ error,
 * error_description }` with 400, 401 (`invalid_client`), 503 `temporarily_unavailable` with
 * Retry-After (a SERVICE_UNAVAILABLE application error: a revocation is stored but the read
 * models that authenticate do not show it yet; RFC 7009 §2.2.1, the client retries) or 500
 * (anything unexpected, logged).
 */
export function sendTokenError(res: Response, err: unknown, logger: Logger): void {
  if (res.headersSent) return;
  let error = 'server_error';
  let message = 'internal error';
  let status = 500;
  let headers: Record<string, string> = {};
  if (err instanceof TokenEndpointError) {
    ({ error, message, status, headers } = err);
  } else if (err instanceof OAuthGrantError) {
    error = err.error;
    message = err.message;
    status = 400;
  } else if (err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE') {
    error = 'temporarily_unavailable';
    message = err.message;
    status = 503;
    headers = { ...err.headers };
  } else if (err instanceof oauth2orize.OAuth2Error) {
    const e = err as unknown as { code: string; message: string };
    error = e.code === 'server_error' ? 'server_error' : e.code;
    message = e.message;
    status = error === 'invalid_client' ? 401 : error === 'server_error' ? 500 : 400;
  } else {
    logger.error(`token request failed: ${(err as Error)?.message}`, (err as Error)?.stack);
  }
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ error, error_description: message });
}
