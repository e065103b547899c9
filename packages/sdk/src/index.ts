export { Gensvc, SDK_VERSION, isFinished, newIdempotencyKey, type Credential, type GensvcOptions, type RequestOptions, type RunFile, type RunOptions, type WaitOptions } from './client.js';
export { readEvents, type ServerSentEvent } from './events.js';
export { WebhookVerificationError, verifyWebhook, type VerifyOptions, type WebhookMessage } from './webhooks.js';
export * from './errors.js';
export * from './types.js';
export {
  MAX_UPLOAD_BYTES,
  detectMime,
  inspectBlob,
  runUpload,
  sha256Hex,
  uploadKey,
  withoutUploadToken,
  type BlobUploadOptions,
  type FileFacts,
  type SendBytes,
  type UploadOptions,
  type UploadProgress,
} from './upload.js';
export type { components, operations, paths } from './generated/openapi.js';
