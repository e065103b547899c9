import type { AppError, ErrorCode } from '@gensvc/kernel';

/**
 * The HTTP status of each error code (CONTRACT.md §5). Errors inside the libraries carry a
 * code only; this table, beside the global exception filter, is the one place that turns a
 * code into a status: the filter, the admin endpoint (given to the operations context) and
 * the OpenAPI document read it. `satisfies` keeps it complete: a new code does not compile
 * until it has a status here.
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
  ASSET_TYPE_UNSUPPORTED: 422,
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
} as const satisfies Readonly<Record<ErrorCode, number>>;

/** The status an `AppError` answers with. */
export const statusOf = (err: AppError): number => ERROR_STATUS[err.code];

/** The status of a code, for the operations context's admin endpoint. */
export const errorStatus = (code: ErrorCode): number => ERROR_STATUS[code];
