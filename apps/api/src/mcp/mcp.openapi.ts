import { type ControllerOpenApi, jsonAnswer as json, type JsonSchema, schemaRef as ref } from '@gensvc/http';
import type { McpController } from './mcp.controller';

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

/** The OpenAPI declarations of the MCP endpoint, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const MCP_OPENAPI: ControllerOpenApi<McpController> = {
  /** POST /mcp */
  handle: {
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
      200: {
        description: 'the JSON-RPC answers of the requests, as server-sent events',
        content: 'sse',
        schema: { description: 'server-sent events ("event: message"), the data of each one JSON-RPC message' },
      },
      202: { description: 'only notifications or responses were sent: accepted', content: 'none' },
      400: json('not a valid JSON-RPC message of the protocol (JSON-RPC error), or a body that is not JSON (the API error object)', { anyOf: [JSON_RPC_ERROR, ref('Error')] }),
      401: { ...json('UNAUTHORIZED: no valid API key or access token', ref('Error')), headers: { 'WWW-Authenticate': { type: 'string', description: 'Bearer resource_metadata="..."' } } },
      406: json('the Accept header does not list both application/json and text/event-stream', JSON_RPC_ERROR),
      413: json('PAYLOAD_TOO_LARGE', ref('Error')),
      415: json('the body is not JSON (UNSUPPORTED_MEDIA_TYPE), or there is no body and no Content-Type (JSON-RPC error)', { anyOf: [ref('Error'), JSON_RPC_ERROR] }),
    },
    errors: [],
  },
  /** GET /.well-known/oauth-protected-resource */
  metadata: {
    operationId: 'mcp.resource_metadata',
    summary: 'OAuth 2.0 protected resource metadata of /mcp (RFC 9728)',
    tag: 'MCP',
    responses: { 200: json('the metadata: resource, authorization_servers, scopes_supported, bearer_methods_supported', { type: 'object' }) },
    errors: [],
  },
  /** GET /.well-known/oauth-protected-resource/mcp */
  metadataAtPath: {
    operationId: 'mcp.resource_metadata.path',
    summary: 'OAuth 2.0 protected resource metadata of /mcp at its path-specific address (RFC 9728)',
    tag: 'MCP',
    responses: { 200: json('the same metadata', { type: 'object' }) },
    errors: [],
  },
};
