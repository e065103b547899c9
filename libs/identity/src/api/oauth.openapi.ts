import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { OAuthController } from './oauth.controller';

/** The OpenAPI declarations of the OAuth endpoints, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const OAUTH_OPENAPI: ControllerOpenApi<OAuthController> = {
  /** GET /.well-known/oauth-authorization-server */
  metadata: {
    operationId: 'oauth.metadata',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    tag: 'OAuth',
    responses: { 200: json('the metadata', ref('AuthorizationServerMetadata')) },
    errors: [],
  },
  /** GET /authorize */
  authorize: {
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
  /** POST /authorize */
  decide: {
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
  /** POST /token */
  token: {
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
  /** POST /revoke */
  revoke: {
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
