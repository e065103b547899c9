import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import { ACCEPTED_MIMES } from '../domain/media-types';
import type { UploadsController } from './uploads.controller';

/**
 * A file's bytes, by media type: a JSON file is any JSON text (its syntax is checked), a text
 * file any UTF-8 text, the others binary (their signature is checked against the type).
 */
const FILE_BODY = Object.fromEntries(
  ACCEPTED_MIMES.map((m) => [
    m,
    { schema: m === 'application/json' ? { description: 'any JSON value (the file)' } : m === 'text/plain' ? { type: 'string' } : { type: 'string', contentMediaType: m } },
  ]),
);

/** The OpenAPI declarations of uploads, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const UPLOADS_OPENAPI: ControllerOpenApi<UploadsController> = {
  /** POST /v1/uploads */
  direct: {
    operationId: 'assets.upload',
    summary: 'Upload a file directly (raw bytes; no session, no idempotent recovery)',
    tag: 'Uploads',
    // Content-Type is the request body's media type (one of the body's content types: the
    // real type of the file); OpenAPI ignores a header parameter of that name, so none is declared.
    description: "The request's Content-Type is the real type of the file, one of the body's media types.",
    headers: [{ name: 'X-Filename', required: true, description: 'URL-encoded file name, 1 to 200 characters', schema: { type: 'string', minLength: 1 } }],
    requestBody: { required: true, content: FILE_BODY },
    responses: { 201: json('the registered asset', ref('Asset')) },
    errors: [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'INSUFFICIENT_SCOPE',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'FILE_TYPE_MISMATCH',
      'INVALID_TEXT',
      'INVALID_JSON',
      'UPLOAD_BUSY',
      'INTERNAL',
    ],
  },
  /** POST /v1/uploads/import */
  import: {
    operationId: 'assets.import',
    summary: 'Import a file from a public HTTPS address',
    tag: 'Uploads',
    body: {
      name: 'UploadImportRequest',
      refine: {
        url: { format: 'uri', pattern: '^https://', description: 'public HTTPS address (port 443); internal addresses are refused' },
        name: { minLength: 1, maxLength: 200 },
      },
    },
    responses: { 201: json('the registered asset', ref('Asset')) },
    errors: [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'INSUFFICIENT_SCOPE',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'FILE_TYPE_MISMATCH',
      'INVALID_TEXT',
      'INVALID_JSON',
      'IMPORT_URL_FORBIDDEN',
      'IMPORT_FAILED',
      'UPLOAD_BUSY',
      'INTERNAL',
    ],
  },
  /** POST /v1/uploads/prepare */
  prepare: {
    operationId: 'assets.upload.prepare',
    summary: 'Prepare an upload (size, real MIME and SHA-256 computed first)',
    tag: 'Uploads',
    description:
      'Keep the same idempotency_key for every retry of one file; a repeat answers the same upload (completed: no need to send the bytes). The answer carries upload.url, upload.method and upload.headers with the X-Upload-Token.',
    body: {
      name: 'UploadPrepareRequest',
      refine: {
        name: { minLength: 1, maxLength: 200, description: 'file name, 1 to 200 characters' },
        mime: { description: 'the real MIME of the file' },
        size: { description: 'bytes' },
        checksum: { description: 'SHA-256 of the complete file bytes, lowercase hex' },
        idempotency_key: { description: 'the same key for every retry of one file' },
      },
    },
    responses: { 200: json('the upload with its instructions', ref('Upload')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'IDEMPOTENCY_CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'UPLOAD_LIMIT_REACHED', 'UPLOAD_BUSY', 'INTERNAL'],
  },
  /** GET /v1/uploads/:id */
  get: {
    operationId: 'assets.upload.get',
    summary: 'Read an upload',
    tag: 'Uploads',
    responses: { 200: json('the upload (without the upload instructions)', ref('Upload')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** PUT /v1/uploads/:id/content */
  content: {
    operationId: 'assets.upload.content',
    summary: 'Send the bytes of a prepared upload (X-Upload-Token only)',
    tag: 'Uploads',
    description: 'Re-send the whole file after an interruption (no chunks, no resume). Content-Type must equal the prepared MIME.',
    // Content-Type (the prepared MIME) is the body's media type; OpenAPI ignores a header parameter of that name.
    requestBody: { required: true, content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
    responses: { 200: json('the upload (uploaded, or completed already)', ref('Upload')) },
    errors: [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'NOT_FOUND',
      'UPLOAD_IN_PROGRESS',
      'UPLOAD_EXPIRED',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'SIZE_MISMATCH',
      'FILE_TYPE_MISMATCH',
      'INVALID_TEXT',
      'INVALID_JSON',
      'CHECKSUM_MISMATCH',
      'UPLOAD_BUSY',
      'INTERNAL',
    ],
  },
  /** POST /v1/uploads/:id/complete */
  complete: {
    operationId: 'assets.upload.complete',
    summary: 'Complete an upload: register its asset',
    tag: 'Uploads',
    requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', maxProperties: 0, description: 'an empty JSON object (or no body)' } } } },
    responses: { 200: json('the completed upload with asset_id', ref('Upload')) },
    errors: [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'INSUFFICIENT_SCOPE',
      'NOT_FOUND',
      'UPLOAD_NOT_READY',
      'UPLOAD_IN_PROGRESS',
      'UPLOAD_EXPIRED',
      'UPLOAD_CONTENT_MISMATCH',
      'INTERNAL',
    ],
  },
};
