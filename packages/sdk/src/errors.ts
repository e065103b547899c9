import type { components } from './generated/openapi.js';

type Task = components['schemas']['Task'];
type Quote = components['schemas']['Quote'];

/** Every error code the API documents (the `code` of its error object). */
export type ErrorCode = components['schemas']['Error']['error']['code'];

/** The API's error object: `{"error": {"code", "message", "request_id"}}`. */
export type ErrorBody = components['schemas']['Error'];

/** Base class of every error this SDK throws. */
export class GensvcError extends Error {
  override name = 'GensvcError';
}

/**
 * The API answered with an error: `status` is the HTTP status, `code` the API's error code,
 * `requestId` (also as `request_id`) the request's X-Request-Id, for support.
 * Subclasses by status let callers `catch` by kind; `code` tells the exact reason.
 */
export class ApiError extends GensvcError {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly requestId: string | undefined,
    /** Seconds from `Retry-After` (429, 503). */
    readonly retryAfter?: number,
    /** The answer's headers (e.g. `Location` of a 409 IDEMPOTENCY_CONFLICT: the task the key created). */
    readonly headers?: Headers,
  ) {
    super(message);
  }

  /** The request id under the API's own field name. */
  get request_id(): string | undefined {
    return this.requestId;
  }

  /** The API's error object, as the server sent it. */
  toJSON(): { error: { code: string; message: string; request_id?: string } } {
    return { error: { code: this.code, message: this.message, ...(this.requestId ? { request_id: this.requestId } : {}) } };
  }
}

/** 400 VALIDATION_ERROR: the message names the field. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
}
/** 401 UNAUTHORIZED: missing, unknown, revoked or expired credential. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 403: the OAuth token lacks the scope (INSUFFICIENT_SCOPE), or a forbidden link. */
export class PermissionError extends ApiError {
  override name = 'PermissionError';
}
/** 404 NOT_FOUND. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 402 INSUFFICIENT_FUNDS. */
export class InsufficientFundsError extends ApiError {
  override name = 'InsufficientFundsError';
}
/** 409: IDEMPOTENCY_CONFLICT, QUOTE_ALREADY_USED, QUOTE_EXPIRED, UPLOAD_IN_PROGRESS, ... */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 429: RATE_LIMITED, UPLOAD_BUSY, UPLOAD_LIMIT_REACHED (see `retryAfter`). */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** The service could not be reached, or the connection broke before an answer. */
export class NetworkError extends GensvcError {
  override name = 'NetworkError';
  readonly code = 'NETWORK_ERROR';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A wait (for example `tasks.wait`) ran out of time; the operation itself goes on. */
export class TimeoutError extends GensvcError {
  override name = 'TimeoutError';
  readonly code = 'TIMEOUT';
  constructor(
    message: string,
    /** The task as it was last seen, when the wait was for one (wait again with `tasks.wait(task.id)`). */
    readonly task?: Task,
  ) {
    super(message);
  }
}

/** A downloaded file does not have the asset's size or SHA-256 (after one fresh attempt). */
export class DownloadIntegrityError extends GensvcError {
  override name = 'DownloadIntegrityError';
  readonly code = 'DOWNLOAD_INTEGRITY';
}

/** `run`: the quote's `max_amount` is above the caller's `maxAmount`; nothing was created or reserved. */
export class QuoteAboveLimitError extends GensvcError {
  override name = 'QuoteAboveLimitError';
  readonly code = 'QUOTE_ABOVE_LIMIT';
  constructor(
    readonly quote: Quote,
    readonly limit: string,
  ) {
    super(`quote ${quote.quote_id} would reserve ${quote.max_amount} CNY, above the limit of ${limit} CNY`);
  }
}

/** `run`: the task ended `failed` (nothing was charged); `code` and `message` are the task's error. */
export class TaskFailedError extends GensvcError {
  override name = 'TaskFailedError';
  readonly code: string;
  constructor(readonly task: Task) {
    super(`task ${task.id} failed: ${task.error?.code ?? 'FAILED'}: ${task.error?.message ?? 'the task failed'}`);
    this.code = task.error?.code ?? 'FAILED';
  }
}

/** `run`: the task ended `canceled` (nothing was charged). */
export class TaskCanceledError extends GensvcError {
  override name = 'TaskCanceledError';
  readonly code = 'TASK_CANCELED';
  constructor(readonly task: Task) {
    super(`task ${task.id} was canceled`);
  }
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: ValidationError,
  401: AuthenticationError,
  402: InsufficientFundsError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
};

/** The typed error of an API answer's status, code, message and request id. */
export function apiError(status: number, code: string, message: string, requestId: string | undefined, retryAfter?: number, headers?: Headers): ApiError {
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new Kind(status, code, message, requestId, retryAfter, headers);
}

/** Reads a non-2xx response into its typed error (the body is consumed). */
export async function errorFromResponse(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let parsed: { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const e = parsed?.error;
  const retryAfter = Number(res.headers.get('retry-after'));
  return apiError(
    res.status,
    typeof e?.code === 'string' ? e.code : `HTTP_${res.status}`,
    typeof e?.message === 'string' ? e.message : text.slice(0, 200) || res.statusText || `HTTP ${res.status}`,
    typeof e?.request_id === 'string' ? e.request_id : (res.headers.get('x-request-id') ?? undefined),
    Number.isFinite(retryAfter) && retryAfter >= 0 && res.headers.has('retry-after') ? retryAfter : undefined,
    res.headers,
  );
}
