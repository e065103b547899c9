/**
 * Typed, HTTP-free application errors. Every context throws these; the API's global
 * filter maps `code` to the status of CONTRACT.md §5 and the spec's error object.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_FUNDS: 402,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  QUOTE_ALREADY_USED: 409,
  QUOTE_EXPIRED: 409,
  UPLOAD_IN_PROGRESS: 409,
  UPLOAD_NOT_READY: 409,
  ASSET_IN_USE: 409,
  VOICE_IN_USE: 409,
  CONFLICT: 409,
  REQUEST_TIMEOUT: 408,
  WEBHOOK_ENDPOINT_DISABLED: 409,
  UPLOAD_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  PRICE_UNAVAILABLE: 422,
  MODEL_UNAVAILABLE: 422,
  UPLOAD_CONTENT_MISMATCH: 422,
  CHECKSUM_MISMATCH: 422,
  SIZE_MISMATCH: 422,
  FILE_TYPE_MISMATCH: 422,
  INVALID_TEXT: 422,
  INVALID_JSON: 422,
  IMPORT_URL_FORBIDDEN: 422,
  IMPORT_FAILED: 422,
  WEBHOOK_URL_FORBIDDEN: 422,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 422,
  UPLOAD_BUSY: 429,
  UPLOAD_LIMIT_REACHED: 429,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After for 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const validationError = (message: string): AppError => new AppError('VALIDATION_ERROR', message);
export const notFound = (what = 'resource'): AppError => new AppError('NOT_FOUND', `${what} not found`);

/** Raised by event stores when the expected revision does not hold. */
export class ConcurrencyError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`stream ${streamName}: expected revision ${expected}, actual ${actual}`);
    this.name = 'ConcurrencyError';
  }
}
