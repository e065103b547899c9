import { type ControllerOpenApi, jsonAnswer as json, PAGE_PARAMETERS, schemaRef as ref } from '@gensvc/http';
import type { AssetsController } from './assets.controller';

const FILE_HEADERS = {
  ETag: { type: 'string', description: 'strong: "<sha256>"' },
  'Accept-Ranges': { const: 'bytes' },
  'Content-Disposition': { type: 'string' },
  'Last-Modified': { type: 'string' },
};

/** The OpenAPI declarations of assets, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const ASSETS_OPENAPI: ControllerOpenApi<AssetsController> = {
  /** GET /v1/assets */
  list: {
    operationId: 'assets.list',
    summary: "List the caller's assets, newest first, with fresh links",
    tag: 'Assets',
    query: [
      ...PAGE_PARAMETERS,
      { name: 'q', description: 'part of the file name (case-insensitive)', schema: { type: 'string', maxLength: 200 } },
    ],
    responses: { 200: json('a page of assets', ref('AssetList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  /** GET /v1/assets/:id */
  get: {
    operationId: 'assets.get',
    summary: 'Read an asset with fresh links (valid one hour)',
    tag: 'Assets',
    responses: { 200: json('the asset', ref('Asset')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** DELETE /v1/assets/:id */
  delete: {
    operationId: 'assets.delete',
    summary: 'Delete an asset (reading and referencing stop at once; file cleanup is queued)',
    tag: 'Assets',
    responses: { 200: json('the deleted asset', ref('AssetDeleted')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'ASSET_IN_USE', 'INTERNAL'],
  },
  /** GET /v1/assets/:id/content */
  file: {
    operationId: 'assets.file',
    summary: 'The file behind a signed link (no credential; single byte ranges)',
    tag: 'Assets',
    query: [
      { name: 'disposition', required: true, description: 'inline (url) or attachment (download_url)', schema: { enum: ['inline', 'attachment'] } },
      { name: 'expires', required: true, description: 'expiry, unix seconds', schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'signature', required: true, description: 'HMAC signature', schema: { type: 'string' } },
    ],
    headers: [
      { name: 'Range', description: 'one range: bytes=a-b, bytes=a-, bytes=-n', schema: { type: 'string' } },
      { name: 'If-Range', description: 'the ETag or Last-Modified date', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'the whole file', content: 'binary', headers: FILE_HEADERS },
      206: { description: 'the requested range (Content-Range)', content: 'binary', headers: { ...FILE_HEADERS, 'Content-Range': { type: 'string' } } },
      304: { description: 'not modified (If-None-Match)', content: 'none' },
    },
    errors: ['VALIDATION_ERROR', 'FORBIDDEN', 'NOT_FOUND', 'RANGE_NOT_SATISFIABLE', 'INTERNAL'],
  },
  /** HEAD /v1/assets/:id/content */
  fileHead: {
    operationId: 'assets.file.head',
    summary: 'The headers of the file behind a signed link',
    tag: 'Assets',
    query: [
      { name: 'disposition', required: true, description: 'inline or attachment', schema: { enum: ['inline', 'attachment'] } },
      { name: 'expires', required: true, description: 'expiry, unix seconds', schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'signature', required: true, description: 'HMAC signature', schema: { type: 'string' } },
    ],
    responses: { 200: { description: 'the headers of the file', content: 'none', headers: FILE_HEADERS }, 206: { description: 'the headers of a range', content: 'none' } },
    errors: ['VALIDATION_ERROR', 'FORBIDDEN', 'NOT_FOUND', 'RANGE_NOT_SATISFIABLE', 'INTERNAL'],
  },
};
