import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { OAuthTokenController } from './oauth-token.controller';

/** The OpenAPI declarations of the OAuth token endpoint, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const OAUTH_TOKEN_OPENAPI: ControllerOpenApi<OAuthTokenController> = {
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
};
