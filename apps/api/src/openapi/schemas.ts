import { ERROR_STATUS } from '../http/error-status';
import { WEBHOOK_EVENT_TYPES } from '@gensvc/notifications';
import type { JsonSchema } from './dto-schema';

/**
 * The response objects of the public API as JSON Schemas (OpenAPI 3.1 = JSON Schema
 * 2020-12): the spec's tables and CONTRACT.md where they define a shape, the implementation's
 * views (docs/api.md) where the spec says "not shown". Objects the service returns exactly
 * are closed (`additionalProperties: false`); the e2e test validates real responses.
 */

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const AMOUNT_PATTERN = '^\\d+\\.\\d{6}$';
const amount = (description: string): JsonSchema => ({ type: 'string', pattern: AMOUNT_PATTERN, description, examples: ['0.080000'] });
const nullableAmount = (description: string): JsonSchema => ({ type: ['string', 'null'], pattern: AMOUNT_PATTERN, description });
const dateTime = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const nullableDateTime = (description: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', description });
const id = (prefix: string, description: string): JsonSchema => ({ type: 'string', pattern: `^${prefix}_[A-Za-z0-9]+$`, description });
const closed = (properties: Record<string, JsonSchema>, description: string, optional: string[] = []): JsonSchema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});
const list = (item: JsonSchema, description: string): JsonSchema =>
  closed(
    {
      data: { type: 'array', items: item },
      page: { type: 'integer', minimum: 1, maximum: 100000 },
      limit: { type: 'integer', minimum: 1 },
      has_more: { type: 'boolean' },
    },
    description,
  );

export const ERROR_CODES = Object.keys(ERROR_STATUS).filter((c) => !['METHOD_NOT_ALLOWED'].includes(c));
export const MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4', 'audio/mpeg', 'audio/wav', 'application/json', 'text/plain'];
const MODALITIES = ['text', 'image', 'audio', 'video'];

export const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
export const SETTLEMENT_STATUSES = ['reserved', 'settled', 'released'];
export const CANCELLATION_STATUSES = ['none', 'requested', 'checking', 'refused', 'unconfirmed', 'confirmed', 'not_needed'];
export const UPLOAD_STATUSES = ['prepared', 'uploading', 'uploaded', 'completed', 'expired'];

const price = closed(
  {
    model: { type: 'string' },
    capability: { type: 'string' },
    unit: { type: 'string', description: 'request, image, 1k_characters, voice, ...' },
    unit_price: amount('CNY per unit'),
    currency: { const: 'CNY' },
    pricing_mode: { const: 'fixed' },
    price_version: { type: 'string' },
    parameters: { type: 'object', additionalProperties: true, description: 'the input values this price applies to, e.g. {"size": "512x512"}; {} for all' },
  },
  'A price of the catalogue.',
);

const modelProperties = {
  id: { type: 'string', minLength: 1, maxLength: 150, description: 'the catalogue model id' },
  name: { type: 'string' },
  modality: { enum: MODALITIES },
  capabilities: { type: 'array', items: { type: 'string' } },
  available: { type: 'boolean', description: 'has a verified route and a sale price (a parameter combination may still have none)' },
  resolved_model: { type: 'string' },
  input_schema: { type: 'object', description: 'JSON Schema of input and options together: properties, types, required fields, enums, ranges, defaults' },
  prices: { type: 'array', items: ref('Price') },
};

const cancellation = closed(
  {
    status: { enum: CANCELLATION_STATUSES },
    requested_at: nullableDateTime('when a cancellation was first requested'),
    error_code: { type: ['string', 'null'], description: 'why a cancellation was refused or could not be confirmed' },
  },
  'The cancellation state of a task. Only task status canceled confirms a cancellation.',
);

const task = closed(
  {
    id: id('task', 'task id'),
    status: { enum: TASK_STATUSES, description: 'queued → running → succeeded | failed | canceled; nothing leaves a terminal status' },
    model: { type: 'string' },
    resolved_model: { type: 'string' },
    capability: { type: 'string' },
    modality: { enum: MODALITIES },
    title: { type: ['string', 'null'], minLength: 1, maxLength: 200, description: 'trimmed' },
    quote_id: id('qt', 'the locked quote'),
    price_version: { type: 'string' },
    currency: { const: 'CNY' },
    max_amount: amount('reserved at creation'),
    charged_amount: nullableAmount('set at settlement; never above max_amount'),
    settlement_status: { enum: SETTLEMENT_STATUSES, description: 'reserved → settled (charged, rest released) | released (nothing charged)' },
    cancellation: ref('Cancellation'),
    output: {
      oneOf: [
        closed(
          {
            asset_ids: { type: 'array', items: id('ast', 'output asset') },
            voice_id: id('voice', 'the cloned voice (voice cloning)'),
            text: { type: 'string', description: 'text output' },
          },
          'What the task produced.',
          ['voice_id', 'text'],
        ),
        { type: 'null' },
      ],
    },
    error: { oneOf: [closed({ code: { type: 'string' }, message: { type: 'string' } }, 'Why the task failed.'), { type: 'null' }] },
    created_at: dateTime('creation time'),
    updated_at: dateTime('last change'),
    completed_at: nullableDateTime('when it reached a terminal status'),
  },
  'A task (CONTRACT.md §3).',
);

const asset = closed(
  {
    id: id('ast', 'stable asset id'),
    name: { type: 'string', minLength: 1, maxLength: 200 },
    mime: { enum: MIME_TYPES },
    size: { type: 'integer', minimum: 1, maximum: 67108864 },
    checksum: { type: 'string', pattern: '^[a-f0-9]{64}$', description: 'SHA-256, lowercase hex' },
    created_at: dateTime('registration time'),
    url: { type: 'string', format: 'uri', description: 'signed preview link (inline), no credential needed, valid one hour' },
    download_url: { type: 'string', format: 'uri', description: 'signed download link (attachment), valid one hour' },
    download_name: { type: 'string', description: 'file name of the download' },
    links_expire_at: dateTime('when url and download_url expire'),
  },
  'An asset with fresh signed links (CONTRACT.md §6).',
);

const upload = closed(
  {
    upload_id: id('up', 'upload id'),
    status: { enum: UPLOAD_STATUSES },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    mime: { type: 'string', minLength: 1, maxLength: 100 },
    size: { type: 'integer', minimum: 1, maximum: 67108864 },
    checksum: { type: 'string', pattern: '^[a-f0-9]{64}$' },
    expires_at: dateTime('end of the 15-minute validity'),
    asset_id: { type: ['string', 'null'], pattern: '^ast_[A-Za-z0-9]+$', description: 'set once completed; the only id usable in input.asset_ids' },
    error_code: { type: ['string', 'null'], description: 'code of the last refused content write or failed complete' },
    upload: closed(
      {
        url: { type: 'string', format: 'uri', description: '{PUBLIC_BASE_URL}/v1/uploads/{id}/content' },
        method: { const: 'PUT' },
        headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'X-Upload-Token (the credential of this one file) and Content-Type' },
      },
      'Where and how to send the bytes: returned by prepare only.',
    ),
    asset: { type: 'object', required: ['id'], properties: { id: { type: 'string' } }, additionalProperties: true, description: 'the registered asset, once completed' },
  },
  'An upload (prepare, status read, content write and complete all answer this shape).',
  ['upload', 'asset'],
);

const voice = closed(
  {
    id: id('voice', 'voice id, usable as input.voice_id'),
    name: { type: 'string' },
    status: { enum: ['active', 'deleting', 'deleted'] },
    source_task_id: id('task', 'the voice-cloning task that made it'),
    models: { type: 'array', items: { type: 'string' }, description: 'models this voice can be used with; [] unless active' },
    created_at: dateTime('creation time'),
    updated_at: dateTime('last change'),
    deletion: closed(
      { status: { enum: ['none', 'queued', 'completed'] }, requested_at: nullableDateTime('deletion requested'), completed_at: nullableDateTime('deletion done') },
      'The deletion state.',
    ),
  },
  'A voice, bound to the supplier channel it came from.',
);

export const SCHEMAS: Record<string, JsonSchema> = {
  Error: closed(
    {
      error: closed(
        {
          code: { enum: ERROR_CODES },
          message: { type: 'string', description: 'names the offending field where there is one' },
          request_id: { type: 'string', description: 'equals the X-Request-Id response header' },
        },
        'The error.',
      ),
    },
    'Every error response: exactly this object, nothing else (no stack trace, secret or supplier cost).',
  ),
  Price: price,
  Model: closed(modelProperties, 'A model with its input schema and prices.'),
  ModelSummary: closed(
    Object.fromEntries(Object.entries(modelProperties).filter(([k]) => k !== 'input_schema')),
    'A model as listed (without input_schema).',
  ),
  ModelList: list(ref('ModelSummary'), 'The catalogue: the whole list on one page.'),
  CapabilityList: list({ type: 'string' }, 'Every capability of the catalogue.'),
  PriceList: list(ref('Price'), 'Every price of the catalogue.'),
  Quote: closed(
    {
      quote_id: id('qt', 'quote id; valid 15 minutes'),
      model: { type: 'string' },
      resolved_model: { type: 'string' },
      currency: { const: 'CNY' },
      pricing_mode: { const: 'fixed' },
      price_version: { type: 'string' },
      estimated_amount: amount('charged when the task succeeds'),
      max_amount: amount('reserved when the task is created'),
      quantity: { type: 'integer', exclusiveMinimum: 0 },
      unit: { type: 'string' },
      unit_price: amount('CNY per unit'),
      expires_at: dateTime('the quote cannot be accepted after this'),
    },
    'A quote: reserves no funds; accepting it (POST /v1/tasks) locks the price.',
  ),
  Cancellation: cancellation,
  Task: task,
  TaskList: list(ref('Task'), 'A page of tasks, newest first.'),
  CancelResult: {
    type: 'object',
    description: 'The answer of a cancel request (may carry additional fields).',
    properties: { task_id: id('task', 'the task'), status: { enum: TASK_STATUSES }, cancellation: ref('Cancellation') },
    required: ['task_id', 'status', 'cancellation'],
    additionalProperties: true,
  },
  Bill: closed(
    {
      id: id('bill', 'bill id'),
      task_id: id('task', 'the task'),
      model: { type: 'string' },
      modality: { enum: MODALITIES },
      currency: { const: 'CNY' },
      max_amount: amount('reserved at creation'),
      charged_amount: nullableAmount('charged at settlement'),
      released_amount: nullableAmount('released at settlement'),
      settlement_status: { enum: SETTLEMENT_STATUSES },
      created_at: dateTime('task creation'),
      settled_at: nullableDateTime('settlement time'),
    },
    'The bill of one task.',
  ),
  BillList: list(ref('Bill'), 'A page of bills, newest first.'),
  Wallet: closed(
    {
      currency: { const: 'CNY' },
      balance: amount('available + reserved'),
      reserved: amount('held for unfinished tasks'),
      available: amount('what new tasks may reserve'),
    },
    'The wallet.',
  ),
  ApiKey: closed(
    {
      id: id('key', 'the key id (the part of the key before its secret)'),
      status: { enum: ['active', 'revoked'] },
      created_at: dateTime('when it was issued'),
      revoked_at: nullableDateTime('when it was revoked'),
    },
    'An account API key (its secret is shown only when it is created).',
  ),
  ApiKeyList: list(ref('ApiKey'), 'A page of API keys, newest first.'),
  ApiKeyCreated: closed(
    {
      id: id('key', 'the key id'),
      status: { const: 'active' },
      created_at: dateTime('when it was issued'),
      revoked_at: { type: 'null' },
      api_key: { type: 'string', description: 'the key itself, shown only in this answer (only its hash is stored)' },
    },
    'A new API key with its secret.',
  ),
  Upload: upload,
  Asset: asset,
  AssetListItem: {
    ...asset,
    description: 'An asset of the list: the asset object plus where it came from.',
    properties: {
      ...(asset.properties as Record<string, JsonSchema>),
      source: { enum: ['upload', 'direct', 'import', 'task_output'] },
      task_id: { type: ['string', 'null'], description: 'the task whose output it is' },
    },
    required: [...(asset.required as string[]), 'source', 'task_id'],
  },
  AssetList: list(ref('AssetListItem'), 'A page of assets, newest first.'),
  AssetDeleted: closed({ id: id('ast', 'the asset'), deleted: { const: true }, deleted_at: dateTime('when it was deleted') }, 'A deleted asset.'),
  Voice: voice,
  VoiceList: list(ref('Voice'), 'A page of voices, newest first.'),
  WebhookEndpoint: closed(
    {
      id: id('whe', 'endpoint id'),
      url: { type: 'string', format: 'uri', description: 'https:// address that receives the messages' },
      events: { type: 'array', minItems: 1, items: { enum: ['*', ...WEBHOOK_EVENT_TYPES] }, description: 'event types sent to it, or ["*"] for all' },
      description: { type: ['string', 'null'], maxLength: 500 },
      status: { enum: ['enabled', 'disabled'], description: 'disabled after a 410 answer or 5 days of failed attempts' },
      created_at: dateTime('creation time'),
      secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]+$', description: 'signing secret (Standard Webhooks); only in the answers of create and rotate-secret' },
    },
    'A webhook endpoint (CONTRACT §10).',
    ['secret'],
  ),
  WebhookEndpointList: list(ref('WebhookEndpoint'), 'A page of webhook endpoints, newest first.'),
  WebhookEndpointDeleted: closed({ id: id('whe', 'the endpoint'), deleted: { const: true } }, 'A deleted webhook endpoint.'),
  WebhookDelivery: closed(
    {
      id: id('whd', 'delivery id'),
      message_id: id('msg', 'the webhook-id header: the same for every attempt'),
      event_type: { enum: [...WEBHOOK_EVENT_TYPES] },
      status: { enum: ['pending', 'delivered', 'retrying', 'failed'] },
      attempts: {
        type: 'array',
        items: closed(
          {
            at: dateTime('when the attempt started'),
            status_code: { type: ['integer', 'null'], description: 'the receiver\'s HTTP status; null when no answer came' },
            duration_ms: { type: 'integer', minimum: 0 },
            error: { type: ['string', 'null'], description: 'why the attempt failed; null when it succeeded' },
          },
          'One attempt.',
        ),
      },
      next_attempt_at: nullableDateTime('when the next attempt is due; null once delivered or failed'),
      created_at: dateTime('when the message was queued'),
    },
    'A message to one endpoint and its attempts (CONTRACT §10).',
  ),
  WebhookDeliveryList: list(ref('WebhookDelivery'), 'A page of deliveries, newest first.'),
  WebhookRetryAccepted: closed({ id: id('whd', 'the delivery'), status: { const: 'pending' } }, 'The delivery is queued again (same message id).'),
  OAuthToken: {
    type: 'object',
    description: 'Token endpoint success (RFC 6749 §5.1).',
    properties: {
      access_token: { type: 'string' },
      token_type: { const: 'Bearer' },
      expires_in: { type: 'integer', minimum: 1 },
      refresh_token: { type: 'string' },
      scope: { type: 'string', description: 'space-separated: read, create' },
    },
    required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
    additionalProperties: false,
  },
  OAuthError: {
    type: 'object',
    description: 'OAuth endpoint error (RFC 6749 §5.2), not the API error object.',
    properties: {
      error: { enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'server_error'] },
      error_description: { type: 'string' },
    },
    required: ['error'],
    additionalProperties: false,
  },
  AuthorizationServerMetadata: {
    type: 'object',
    description: 'RFC 8414 authorization server metadata.',
    properties: {
      issuer: { type: 'string', format: 'uri' },
      authorization_endpoint: { type: 'string', format: 'uri' },
      token_endpoint: { type: 'string', format: 'uri' },
      revocation_endpoint: { type: 'string', format: 'uri' },
      scopes_supported: { type: 'array', items: { type: 'string' } },
    },
    required: ['issuer', 'authorization_endpoint', 'token_endpoint'],
    additionalProperties: true,
  },
};
