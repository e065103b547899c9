/**
 * Typed, HTTP-free application errors. Every context throws these with a code; the code says
 * what went wrong, not how a transport reports it. The API's global filter maps each code to
 * the status of CONTRACT.md §5 (its table is apps/api/src/http/error-status.ts) and the
 * spec's error object.
 */
export const APP_ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'INSUFFICIENT_FUNDS',
  'INSUFFICIENT_SCOPE',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_CONFLICT',
  'QUOTE_ALREADY_USED',
  'QUOTE_EXPIRED',
  'UPLOAD_IN_PROGRESS',
  'UPLOAD_NOT_READY',
  'ASSET_IN_USE',
  'VOICE_IN_USE',
  'CONFLICT',
  'REQUEST_TIMEOUT',
  'WEBHOOK_ENDPOINT_DISABLED',
  'UPLOAD_EXPIRED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RANGE_NOT_SATISFIABLE',
  'PRICE_UNAVAILABLE',
  'MODEL_UNAVAILABLE',
  'UPLOAD_CONTENT_MISMATCH',
  'CHECKSUM_MISMATCH',
  'SIZE_MISMATCH',
  'FILE_TYPE_MISMATCH',
  'ASSET_TYPE_UNSUPPORTED',
  'INVALID_TEXT',
  'INVALID_JSON',
  'IMPORT_URL_FORBIDDEN',
  'IMPORT_FAILED',
  'WEBHOOK_URL_FORBIDDEN',
  'WEBHOOK_ENDPOINT_LIMIT_REACHED',
  'UPLOAD_BUSY',
  'UPLOAD_LIMIT_REACHED',
  'RATE_LIMITED',
  'HEADERS_TOO_LARGE',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof APP_ERROR_CODES)[number];

/**
 * The codes that report a fault of the service (or of a server it depends on), not of the
 * request: the same request may succeed later. Every other code reports a fault of the request.
 */
const SERVICE_FAULTS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INTERNAL', 'SERVICE_UNAVAILABLE']);

export const isServiceFault = (code: ErrorCode): boolean => SERVICE_FAULTS.has(code);

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
