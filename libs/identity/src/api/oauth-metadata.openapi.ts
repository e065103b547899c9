import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { OAuthMetadataController } from './oauth-metadata.controller';

/** The OpenAPI declarations of the OAuth authorization server metadata, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const OAUTH_METADATA_OPENAPI: ControllerOpenApi<OAuthMetadataController> = {
  /** GET /.well-known/oauth-authorization-server */
  metadata: {
    operationId: 'oauth.metadata',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    tag: 'OAuth',
    responses: { 200: json('the metadata', ref('AuthorizationServerMetadata')) },
    errors: [],
  },
};
