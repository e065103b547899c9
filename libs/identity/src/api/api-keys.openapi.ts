import { type ControllerOpenApi, jsonAnswer as json, PAGE_PARAMETERS, schemaRef as ref } from '@gensvc/http';
import type { ApiKeysController } from './api-keys.controller';

/** The OpenAPI declarations of API keys, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const API_KEYS_OPENAPI: ControllerOpenApi<ApiKeysController> = {
  /** GET /v1/api-keys */
  list: {
    operationId: 'api_keys.list',
    summary: "List the account's API keys (web console sign-in only)",
    tag: 'API keys',
    description: "Answers only to an OAuth access token of the service's own web console client; an API key or another application's token gets 403 INSUFFICIENT_SCOPE.",
    query: [
      ...PAGE_PARAMETERS,
    ],
    responses: { 200: json('a page of API keys', ref('ApiKeyList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  /** POST /v1/api-keys */
  create: {
    operationId: 'api_keys.create',
    summary: 'Create an API key, shown once (web console sign-in only)',
    tag: 'API keys',
    description: 'Body: an empty JSON object. The key is in this answer only.',
    responses: { 201: json('the new key with its secret', ref('ApiKeyCreated')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL'],
  },
  /** DELETE /v1/api-keys/:id */
  revoke: {
    operationId: 'api_keys.revoke',
    summary: 'Revoke an API key at once (web console sign-in only)',
    tag: 'API keys',
    description: 'Repeating it is harmless. A key of another account is 404.',
    responses: { 200: json('the revoked key', ref('ApiKey')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL', 'SERVICE_UNAVAILABLE'],
  },
};
