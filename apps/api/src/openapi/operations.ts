import type { ErrorCode } from '@gensvc/shared';
import type { JsonSchema } from './dto-schema';
import { MIME_TYPES, SETTLEMENT_STATUSES, TASK_STATUSES, ref } from './schemas';

/** What the code cannot say by itself about one operation: its answers and raw inputs. */
export interface OperationDoc {
  /** The agent-tool or resource name; `@Operation`/`@ApiOperation` metadata on the handler wins. */
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  /** Success answers by status. */
  readonly responses: Record<number, { description: string; schema?: JsonSchema; content?: 'json' | 'binary' | 'html' | 'sse' | 'none'; headers?: Record<string, JsonSchema> }>;
  /** Error codes the operation can answer (grouped by status in the document). */
  readonly errors: readonly ErrorCode[];
  readonly query?: readonly Parameter[];
  readonly headers?: readonly Parameter[];
  /** A body the DTO does not describe (raw bytes, forms). */
  readonly requestBody?: JsonSchema;
  readonly description?: string;
}

export interface Parameter {
  readonly name: string;
  readonly required?: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
}

const LIST_FILTERS: Parameter[] = [
  { name: 'page', description: 'page number', schema: { type: 'integer', minimum: 1, maximum: 100000, default: 1 } },
  { name: 'limit', description: 'items per page', schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } },
  { name: 'q', description: 'search in id, title, model and quote id', schema: { type: 'string', maxLength: 200 } },
  { name: 'status', description: 'task status', schema: { type: 'string', maxLength: 40, enum: TASK_STATUSES } },
  { name: 'modality', description: 'task modality', schema: { type: 'string', maxLength: 40, enum: ['text', 'image', 'audio', 'video'] } },
  { name: 'settlement_status', description: 'settlement status', schema: { type: 'string', maxLength: 40, enum: SETTLEMENT_STATUSES } },
  { name: 'connection_id', description: 'the API key id or OAuth grant id that created the task', schema: { type: 'string', maxLength: 100 } },
  { name: 'created_from', description: 'creation time, inclusive (date-time with time zone)', schema: { type: 'string', format: 'date-time' } },
  { name: 'created_before', description: 'creation time, exclusive (date-time with time zone)', schema: { type: 'string', format: 'date-time' } },
  { name: 'min_amount', description: 'net charged CNY, inclusive; excludes unsettled tasks', schema: { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,6})?$' } },
  { name: 'max_amount', description: 'net charged CNY, inclusive; excludes unsettled tasks', schema: { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,6})?$' } },
];

/** The 429 answers' header, as a header object (description and schema). */
const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
const FILE_HEADERS = {
  ETag: { type: 'string', description: 'strong: "<sha256>"' },
  'Accept-Ranges': { const: 'bytes' },
  'Content-Disposition': { type: 'string' },
  'Last-Modified': { type: 'string' },
};

/**
 * A file's bytes, by media type: a JSON file is any JSON text (its syntax is checked), a text
 * file any UTF-8 text, the others binary (their signature is checked against the type).
 */
const FILE_BODY = Object.fromEntries(
  MIME_TYPES.map((m) => [
    m,
    { schema: m === 'application/json' ? { description: 'any JSON value (the file)' } : m === 'text/plain' ? { type: 'string' } : { type: 'string', contentMediaType: m } },
  ]),
);

/** A JSON-RPC 2.0 message as the MCP transport accepts it: a request, a notification, a result or an error. */
const RPC = { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] } };
const PARAMS = { type: 'object', properties: { _meta: { type: 'object' } } };
const JSON_RPC_MESSAGE: JsonSchema = {
  anyOf: [
    { type: 'object', title: 'request', required: ['jsonrpc', 'id', 'method'], additionalProperties: false, properties: { ...RPC, method: { type: 'string' }, params: PARAMS } },
    { type: 'object', title: 'notification', required: ['jsonrpc', 'method'], additionalProperties: false, properties: { jsonrpc: RPC.jsonrpc, method: { type: 'string' }, params: PARAMS } },
    { type: 'object', title: 'result', required: ['jsonrpc', 'id', 'result'], additionalProperties: false, properties: { ...RPC, result: PARAMS } },
    {
      type: 'object',
      title: 'error',
      required: ['jsonrpc', 'error'],
      additionalProperties: false,
      properties: { ...RPC, error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } } },
    },
  ],
};
const JSON_RPC_ERROR: JsonSchema = {
  type: 'object',
  description: 'A JSON-RPC 2.0 error answered by the MCP transport (not the API error object).',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
    id: { type: 'null' },
  },
};

const json = (description: string, schema: JsonSchema) => ({ description, schema, content: 'json' as const });

/** Keyed by `METHOD /path/:param` as the routes are declared. */
export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /v1/models': {
    operationId: 'catalogue.models.list',
    summary: 'List the models of the catalogue',
    tag: 'Catalogue',
    responses: { 200: json('the models (without input_schema)', ref('ModelList')) },
    errors: ['VALIDATION_ERROR', 'INTERNAL'],
  },
  'GET /v1/models/:id': {
    operationId: 'catalogue.models.get',
    summary: 'Read one model with its input schema and prices',
    tag: 'Catalogue',
    responses: { 200: json('the model', ref('Model')) },
    errors: ['NOT_FOUND', 'INTERNAL'],
  },
  'GET /v1/capabilities': {
    operationId: 'catalogue.capabilities.list',
    summary: 'List the capabilities',
    tag: 'Catalogue',
    responses: { 200: json('the capabilities', ref('CapabilityList')) },
    errors: ['INTERNAL'],
  },
  'GET /v1/prices': {
    operationId: 'catalogue.prices.list',
    summary: 'List the prices',
    tag: 'Catalogue',
    responses: { 200: json('every price', ref('PriceList')) },
    errors: ['INTERNAL'],
  },
  'POST /v1/quotes': {
    operationId: 'quotes.create',
    summary: 'Quote a task (reserves nothing)',
    tag: 'Quotes',
    description:
      'input and options are merged and validated against the model\'s input_schema; undeclared parameters, a name in both input and options, and ' +
      'asset_ids/voice_id/consent_attested outside input are refused. asset_ids must be the caller\'s completed assets, voice_id the caller\'s usable voice.',
    responses: { 200: json('the quote', ref('Quote')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'PAYLOAD_TOO_LARGE', 'PRICE_UNAVAILABLE', 'MODEL_UNAVAILABLE', 'INTERNAL'],
  },
  'POST /v1/tasks': {
    operationId: 'tasks.create',
    summary: 'Create a task from a quote (locks the quote, reserves max_amount)',
    tag: 'Tasks',
    description:
      'Retry with the same Idempotency-Key and the same body to get the same task (for at least 24 hours). A new creation needs a new quote and a new key.',
    headers: [{ name: 'Idempotency-Key', required: true, description: 'one key per intended task', schema: { type: 'string', minLength: 8, maxLength: 150 } }],
    responses: { 202: json('the task (queued)', ref('Task')) },
    errors: [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'INSUFFICIENT_FUNDS',
      'INSUFFICIENT_SCOPE',
      'NOT_FOUND',
      'IDEMPOTENCY_CONFLICT',
      'QUOTE_ALREADY_USED',
      'QUOTE_EXPIRED',
      'PAYLOAD_TOO_LARGE',
      'INTERNAL',
    ],
  },
  'GET /v1/tasks': {
    operationId: 'tasks.list',
    summary: 'List the caller\'s tasks',
    tag: 'Tasks',
    query: LIST_FILTERS,
    responses: { 200: json('a page of tasks', ref('TaskList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'GET /v1/tasks/:id': {
    operationId: 'tasks.get',
    summary: 'Read a task (poll it for progress)',
    tag: 'Tasks',
    responses: { 200: json('the task', ref('Task')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'POST /v1/tasks/:id/cancel': {
    operationId: 'tasks.cancel',
    summary: 'Cancel a task',
    tag: 'Tasks',
    description:
      '200: canceled at once (confirmed) or nothing to do (not_needed). 202: the supplier is asked (requested, then checking); keep reading the task; funds stay reserved until confirmed.',
    responses: { 200: json('done', ref('CancelResult')), 202: json('requested or being checked', ref('CancelResult')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'GET /v1/wallet': {
    operationId: 'wallet.get',
    summary: 'Read the wallet',
    tag: 'Wallet',
    responses: { 200: json('the wallet', ref('Wallet')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'GET /v1/api-keys': {
    operationId: 'api_keys.list',
    summary: "List the account's API keys (web console sign-in only)",
    tag: 'API keys',
    description: "Answers only to an OAuth access token of the service's own web console client; an API key or another application's token gets 403 INSUFFICIENT_SCOPE.",
    query: [
      { name: 'page', description: 'page number', schema: { type: 'integer', minimum: 1, maximum: 100000, default: 1 } },
      { name: 'limit', description: 'items per page', schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } },
    ],
    responses: { 200: json('a page of API keys', ref('ApiKeyList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'POST /v1/api-keys': {
    operationId: 'api_keys.create',
    summary: 'Create an API key, shown once (web console sign-in only)',
    tag: 'API keys',
    description: 'Body: an empty JSON object. The key is in this answer only.',
    responses: { 201: json('the new key with its secret', ref('ApiKeyCreated')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL'],
  },
  'DELETE /v1/api-keys/:id': {
    operationId: 'api_keys.revoke',
    summary: 'Revoke an API key at once (web console sign-in only)',
    tag: 'API keys',
    description: 'Repeating it is harmless. A key of another account is 404.',
    responses: { 200: json('the revoked key', ref('ApiKey')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'GET /v1/billing': {
    operationId: 'billing.list',
    summary: 'List the bills of the caller\'s tasks',
    tag: 'Wallet',
    query: LIST_FILTERS,
    responses: { 200: json('a page of bills', ref('BillList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'POST /v1/uploads': {
    operationId: 'assets.upload',
    summary: 'Upload a file directly (raw bytes; no session, no idempotent recovery)',
    tag: 'Uploads',
    headers: [
      { name: 'X-Filename', required: true, description: 'URL-encoded file name, 1 to 200 characters', schema: { type: 'string', minLength: 1 } },
      { name: 'Content-Type', required: true, description: 'the real type of the file', schema: { enum: MIME_TYPES } },
    ],
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
  'POST /v1/uploads/import': {
    operationId: 'assets.import',
    summary: 'Import a file from a public HTTPS address',
    tag: 'Uploads',
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
  'POST /v1/uploads/prepare': {
    operationId: 'assets.upload.prepare',
    summary: 'Prepare an upload (size, real MIME and SHA-256 computed first)',
    tag: 'Uploads',
    description:
      'Keep the same idempotency_key for every retry of one file; a repeat answers the same upload (completed: no need to send the bytes). The answer carries upload.url, upload.method and upload.headers with the X-Upload-Token.',
    responses: { 200: json('the upload with its instructions', ref('Upload')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'IDEMPOTENCY_CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'UPLOAD_LIMIT_REACHED', 'INTERNAL'],
  },
  'GET /v1/uploads/:id': {
    operationId: 'assets.upload.get',
    summary: 'Read an upload',
    tag: 'Uploads',
    responses: { 200: json('the upload (without the upload instructions)', ref('Upload')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'PUT /v1/uploads/:id/content': {
    operationId: 'assets.upload.content',
    summary: 'Send the bytes of a prepared upload (X-Upload-Token only)',
    tag: 'Uploads',
    description: 'Re-send the whole file after an interruption (no chunks, no resume). Content-Type must equal the prepared MIME.',
    headers: [{ name: 'Content-Type', required: true, description: 'the MIME returned by prepare', schema: { enum: MIME_TYPES } }],
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
  'POST /v1/uploads/:id/complete': {
    operationId: 'assets.upload.complete',
    summary: 'Complete an upload: register its asset',
    tag: 'Uploads',
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
  'GET /v1/assets': {
    operationId: 'assets.list',
    summary: "List the caller's assets, newest first, with fresh links",
    tag: 'Assets',
    query: [
      { name: 'page', description: 'page number', schema: { type: 'integer', minimum: 1, maximum: 100000, default: 1 } },
      { name: 'limit', description: 'items per page', schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } },
      { name: 'q', description: 'part of the file name (case-insensitive)', schema: { type: 'string', maxLength: 200 } },
    ],
    responses: { 200: json('a page of assets', ref('AssetList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'GET /v1/assets/:id': {
    operationId: 'assets.get',
    summary: 'Read an asset with fresh links (valid one hour)',
    tag: 'Assets',
    responses: { 200: json('the asset', ref('Asset')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'DELETE /v1/assets/:id': {
    operationId: 'assets.delete',
    summary: 'Delete an asset (reading and referencing stop at once; file cleanup is queued)',
    tag: 'Assets',
    responses: { 200: json('the deleted asset', ref('AssetDeleted')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'ASSET_IN_USE', 'INTERNAL'],
  },
  'GET /v1/assets/:id/content': {
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
  'HEAD /v1/assets/:id/content': {
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
  'GET /v1/voices': {
    operationId: 'voices.list',
    summary: 'List the caller\'s voices',
    tag: 'Voices',
    responses: { 200: json('a page of voices', ref('VoiceList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'GET /v1/voices/:id': {
    operationId: 'voices.get',
    summary: 'Read a voice and its deletion state',
    tag: 'Voices',
    responses: { 200: json('the voice', ref('Voice')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'DELETE /v1/voices/:id': {
    operationId: 'voices.delete',
    summary: 'Delete a voice (queued)',
    tag: 'Voices',
    responses: { 202: json('the voice, deletion queued', ref('Voice')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'VOICE_IN_USE', 'INTERNAL'],
  },
  'POST /v1/webhook-endpoints': {
    operationId: 'webhooks.endpoints.create',
    summary: 'Create a webhook endpoint (the secret is shown only here)',
    tag: 'Webhooks',
    responses: { 201: json('the endpoint with its secret', ref('WebhookEndpoint')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'UNSUPPORTED_MEDIA_TYPE', 'WEBHOOK_URL_FORBIDDEN', 'WEBHOOK_ENDPOINT_LIMIT_REACHED', 'INTERNAL'],
  },
  'GET /v1/webhook-endpoints': {
    operationId: 'webhooks.endpoints.list',
    summary: 'List the caller\'s webhook endpoints',
    tag: 'Webhooks',
    query: LIST_FILTERS.slice(0, 2),
    responses: { 200: json('a page of endpoints, newest first', ref('WebhookEndpointList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  'GET /v1/webhook-endpoints/:id': {
    operationId: 'webhooks.endpoints.get',
    summary: 'Read a webhook endpoint (without its secret)',
    tag: 'Webhooks',
    responses: { 200: json('the endpoint', ref('WebhookEndpoint')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'DELETE /v1/webhook-endpoints/:id': {
    operationId: 'webhooks.endpoints.delete',
    summary: 'Delete a webhook endpoint; nothing is sent to it afterwards',
    tag: 'Webhooks',
    responses: { 200: json('deleted', ref('WebhookEndpointDeleted')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'POST /v1/webhook-endpoints/:id/rotate-secret': {
    operationId: 'webhooks.endpoints.rotate_secret',
    summary: 'Replace the signing secret; the previous one keeps signing beside it for 24 hours',
    tag: 'Webhooks',
    responses: { 200: json('the endpoint with its new secret', ref('WebhookEndpoint')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'GET /v1/webhook-endpoints/:id/deliveries': {
    operationId: 'webhooks.deliveries.list',
    summary: 'List the deliveries of an endpoint, newest first, with every attempt',
    tag: 'Webhooks',
    query: LIST_FILTERS.slice(0, 2),
    responses: { 200: json('a page of deliveries', ref('WebhookDeliveryList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  'POST /v1/webhook-endpoints/:id/deliveries/:delivery_id/retry': {
    operationId: 'webhooks.deliveries.retry',
    summary: 'Send a delivery again now (the same message, the same webhook-id)',
    tag: 'Webhooks',
    responses: { 202: json('queued again', ref('WebhookRetryAccepted')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED', 'INTERNAL'],
  },
  'GET /v1/openapi.json': {
    operationId: 'openapi.get',
    summary: 'This document',
    tag: 'Meta',
    responses: { 200: json('the OpenAPI 3.1 document', { type: 'object' }) },
    errors: ['INTERNAL'],
  },
  'POST /mcp': {
    operationId: 'mcp.post',
    summary: 'MCP Streamable HTTP endpoint (stateless): the agent tools for remote agents',
    description:
      'One JSON-RPC message (or a batch) per POST (initialize, tools/list, tools/call, ...); requests are answered as an SSE stream (progress notifications, then the result), ' +
      'notifications and responses with 202. The client must send Accept: application/json, text/event-stream (406 otherwise). Bearer API key or OAuth access token; ' +
      'a 401 names the protected-resource metadata in WWW-Authenticate. Tools and their schemas: tools/list, and docs/api.md. Other methods on /mcp answer 405 ' +
      '(no standalone SSE stream, no session).',
    tag: 'MCP',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            description: 'a JSON-RPC 2.0 message of the Model Context Protocol, or a batch of them',
            oneOf: [JSON_RPC_MESSAGE, { type: 'array', maxItems: 100, items: JSON_RPC_MESSAGE }],
          },
        },
      },
    },
    responses: {
      200: { description: 'the JSON-RPC answers of the requests, as server-sent events', content: 'sse' },
      202: { description: 'only notifications or responses were sent: accepted', content: 'none' },
      400: json('not a valid JSON-RPC message of the protocol (JSON-RPC error), or a body that is not JSON (the API error object)', { anyOf: [JSON_RPC_ERROR, ref('Error')] }),
      401: { ...json('UNAUTHORIZED: no valid API key or access token', ref('Error')), headers: { 'WWW-Authenticate': { type: 'string', description: 'Bearer resource_metadata="..."' } } },
      406: json('the Accept header does not list both application/json and text/event-stream', JSON_RPC_ERROR),
      413: json('PAYLOAD_TOO_LARGE', ref('Error')),
      415: json('the body is not JSON (UNSUPPORTED_MEDIA_TYPE), or there is no body and no Content-Type (JSON-RPC error)', { anyOf: [ref('Error'), JSON_RPC_ERROR] }),
    },
    errors: [],
  },
  'GET /.well-known/oauth-protected-resource': {
    operationId: 'mcp.resource_metadata',
    summary: 'OAuth 2.0 protected resource metadata of /mcp (RFC 9728)',
    tag: 'MCP',
    responses: { 200: json('the metadata: resource, authorization_servers, scopes_supported, bearer_methods_supported', { type: 'object' }) },
    errors: [],
  },
  'GET /.well-known/oauth-protected-resource/mcp': {
    operationId: 'mcp.resource_metadata.path',
    summary: 'OAuth 2.0 protected resource metadata of /mcp at its path-specific address (RFC 9728)',
    tag: 'MCP',
    responses: { 200: json('the same metadata', { type: 'object' }) },
    errors: [],
  },
  'GET /.well-known/oauth-authorization-server': {
    operationId: 'oauth.metadata',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    tag: 'OAuth',
    responses: { 200: json('the metadata', ref('AuthorizationServerMetadata')) },
    errors: [],
  },
  'GET /authorize': {
    operationId: 'oauth.authorize',
    summary: 'Authorization endpoint: login and consent page (authorization code, PKCE S256)',
    tag: 'OAuth',
    query: [
      { name: 'response_type', required: true, description: 'code', schema: { const: 'code' } },
      { name: 'client_id', required: true, description: 'the client', schema: { type: 'string' } },
      { name: 'redirect_uri', required: true, description: 'a registered redirect URI, exactly', schema: { type: 'string', format: 'uri' } },
      { name: 'scope', required: true, description: 'read, create or both (space-separated)', schema: { type: 'string' } },
      { name: 'state', description: 'echoed', schema: { type: 'string' } },
      { name: 'code_challenge', description: 'PKCE (required for public clients)', schema: { type: 'string' } },
      { name: 'code_challenge_method', description: 'S256', schema: { const: 'S256' } },
    ],
    responses: {
      200: { description: 'the login or consent page', content: 'html' },
      302: { description: 'back to the client with code and state, or error (e.g. access_denied, invalid_scope)', content: 'none' },
      400: { description: 'a redirect URI that is not registered, or a malformed request: an error page, never a redirect', content: 'html' },
      403: { description: 'unknown client (unauthorized_client): an error page, never a redirect', content: 'html' },
    },
    errors: [],
  },
  'POST /authorize': {
    operationId: 'oauth.authorize.decide',
    summary: 'The login and consent forms (CSRF-protected)',
    tag: 'OAuth',
    requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } } },
    responses: {
      200: { description: 'the next page', content: 'html' },
      302: { description: 'back to the client', content: 'none' },
      400: { description: 'a malformed form or an unknown client', content: 'html' },
      401: { description: 'wrong email or password (the login page again)', content: 'html' },
      403: { description: 'missing or wrong CSRF token', content: 'html' },
      429: { description: 'too many failed sign-ins (the login page again)', content: 'html', headers: { 'Retry-After': { type: 'integer', minimum: 1 } } },
    },
    errors: [],
  },
  'POST /token': {
    operationId: 'oauth.token',
    summary: 'Token endpoint: authorization_code and refresh_token grants (refresh tokens rotate)',
    tag: 'OAuth',
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['grant_type'],
            properties: {
              grant_type: { enum: ['authorization_code', 'refresh_token'] },
              code: { type: 'string' },
              redirect_uri: { type: 'string' },
              code_verifier: { type: 'string' },
              refresh_token: { type: 'string' },
              scope: { type: 'string' },
              client_id: { type: 'string' },
              client_secret: { type: 'string' },
            },
          },
        },
      },
    },
    responses: {
      200: json('the tokens', ref('OAuthToken')),
      400: json('invalid_request, invalid_grant, invalid_scope, unsupported_grant_type', ref('OAuthError')),
      401: json('invalid_client', ref('OAuthError')),
      500: json('server_error', ref('OAuthError')),
    },
    errors: [],
  },
  'POST /revoke': {
    operationId: 'oauth.revoke',
    summary: 'Token revocation (RFC 7009)',
    tag: 'OAuth',
    requestBody: {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' }, token_type_hint: { type: 'string' } } } } },
    },
    responses: {
      200: json('revoked (also for unknown tokens)', { type: 'object', maxProperties: 0 }),
      400: json('invalid_request', ref('OAuthError')),
      401: json('invalid_client', ref('OAuthError')),
      500: json('server_error', ref('OAuthError')),
    },
    errors: [],
  },
};

/** Routes that are not part of the public API (health probes, supplier callbacks). */
export const EXCLUDED = [/^\/health\//, /^\/v1\/supplier-callbacks\//];

export { RETRY_AFTER };
