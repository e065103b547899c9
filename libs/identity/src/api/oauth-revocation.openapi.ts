import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { OAuthRevocationController } from './oauth-revocation.controller';

/** The OpenAPI declarations of the OAuth token revocation endpoint, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const OAUTH_REVOCATION_OPENAPI: ControllerOpenApi<OAuthRevocationController> = {
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
      503: json('temporarily_unavailable: the revocation is stored but not in effect yet; retry after Retry-After (RFC 7009 §2.2.1)', ref('OAuthError')),
    },
    errors: [],
  },
};
