import { type ControllerOpenApi, jsonAnswer as json, PAGE_PARAMETERS, schemaRef as ref } from '@gensvc/http';
import { WEBHOOK_EVENT_TYPES } from '../domain/endpoints';
import type { WebhookEndpointsController } from './webhook-endpoints.controller';

/** The OpenAPI declarations of webhook endpoints, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const WEBHOOK_ENDPOINTS_OPENAPI: ControllerOpenApi<WebhookEndpointsController> = {
  /** POST /v1/webhook-endpoints */
  create: {
    operationId: 'webhooks.endpoints.create',
    summary: 'Create a webhook endpoint (the secret is shown only here)',
    tag: 'Webhooks',
    body: {
      name: 'CreateWebhookEndpointDto',
      refine: {
        url: {
          format: 'uri',
          minLength: 1,
          maxLength: 2048,
          pattern: '^https://',
          description: 'https:// address without user name, password or fragment; a host that is not public is refused (WEBHOOK_URL_FORBIDDEN)',
        },
        events: {
          minItems: 1,
          maxItems: 32,
          anyOf: [{ items: { const: '*' } }, { items: { enum: [...WEBHOOK_EVENT_TYPES] } }],
          description: 'event types to receive, or ["*"] (alone) for all',
        },
        description: { type: ['string', 'null'], maxLength: 500 },
      },
    },
    responses: { 201: json('the endpoint with its secret', ref('WebhookEndpoint')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'UNSUPPORTED_MEDIA_TYPE', 'WEBHOOK_URL_FORBIDDEN', 'WEBHOOK_ENDPOINT_LIMIT_REACHED', 'INTERNAL'],
  },
  /** GET /v1/webhook-endpoints */
  list: {
    operationId: 'webhooks.endpoints.list',
    summary: 'List the caller\'s webhook endpoints',
    tag: 'Webhooks',
    query: PAGE_PARAMETERS,
    responses: { 200: json('a page of endpoints, newest first', ref('WebhookEndpointList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  /** GET /v1/webhook-endpoints/:id */
  get: {
    operationId: 'webhooks.endpoints.get',
    summary: 'Read a webhook endpoint (without its secret)',
    tag: 'Webhooks',
    responses: { 200: json('the endpoint', ref('WebhookEndpoint')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** DELETE /v1/webhook-endpoints/:id */
  delete: {
    operationId: 'webhooks.endpoints.delete',
    summary: 'Delete a webhook endpoint; nothing is sent to it afterwards',
    tag: 'Webhooks',
    responses: { 200: json('deleted', ref('WebhookEndpointDeleted')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** POST /v1/webhook-endpoints/:id/rotate-secret */
  rotate: {
    operationId: 'webhooks.endpoints.rotate_secret',
    summary: 'Replace the signing secret; the previous one keeps signing beside it for 24 hours',
    tag: 'Webhooks',
    responses: { 200: json('the endpoint with its new secret', ref('WebhookEndpoint')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** GET /v1/webhook-endpoints/:id/deliveries */
  listDeliveries: {
    operationId: 'webhooks.deliveries.list',
    summary: 'List the deliveries of an endpoint, newest first, with every attempt',
    tag: 'Webhooks',
    query: PAGE_PARAMETERS,
    responses: { 200: json('a page of deliveries', ref('WebhookDeliveryList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** POST /v1/webhook-endpoints/:id/deliveries/:delivery_id/retry */
  retry: {
    operationId: 'webhooks.deliveries.retry',
    summary: 'Send a delivery again now (the same message, the same webhook-id)',
    tag: 'Webhooks',
    responses: { 202: json('queued again', ref('WebhookRetryAccepted')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED', 'INTERNAL'],
  },
};
