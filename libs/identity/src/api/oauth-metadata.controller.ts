import { Controller, Get } from '@nestjs/common';
import { AppConfig } from '@gensvc/config';
import { OpenApiOperations, Public, SCOPES } from '@gensvc/http';
import { OAUTH_METADATA_OPENAPI } from './oauth-metadata.openapi';

/** The authorization server's RFC 8414 metadata, so standard clients configure themselves. */
@Controller()
@Public()
@OpenApiOperations(OAUTH_METADATA_OPENAPI)
export class OAuthMetadataController {
  constructor(private readonly config: AppConfig) {}

  @Get('.well-known/oauth-authorization-server')
  metadata() {
    const base = this.config.publicBaseUrl;
    return {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      revocation_endpoint: `${base}/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...SCOPES],
      authorization_response_iss_parameter_supported: true,
    };
  }
}
