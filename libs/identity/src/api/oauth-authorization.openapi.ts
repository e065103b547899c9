import type { ControllerOpenApi } from '@gensvc/http';
import type { OAuthAuthorizationController } from './oauth-authorization.controller';

/** The OpenAPI declarations of the OAuth authorization endpoint, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const OAUTH_AUTHORIZATION_OPENAPI: ControllerOpenApi<OAuthAuthorizationController> = {
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
};
