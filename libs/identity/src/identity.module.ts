import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsService } from './application/create-account/create-account.handler';
import { Authenticator } from './application/authenticate/authenticator';
import { AccessTokensProjection, AccountsProjection, ApiKeysProjection, OAuthGrantsProjection } from './application/authenticate/identity.projections';
import { OAuthService } from './application/oauth-grants';
import { OAuthController } from './api/oauth.controller';
import { ApiKeysController } from './api/api-keys.controller';
import { OAuthClientsService } from './application/find-oauth-client/find-oauth-client.handler';
import { SignedUploadTokens } from './application/upload-token-signer';
import { AccessGuard } from './api/access.guard';
import { UploadTokens } from './contracts/upload-tokens';
import { PasswordHasher, ScryptPasswordHasher } from './infrastructure/password-hasher';

/**
 * Identity and access: accounts, API keys, OAuth 2.0 authorization server, upload tokens,
 * and the global guard that enforces every route's access rule.
 */
@Global()
@Module({
  controllers: [OAuthController, ApiKeysController],
  providers: [
    { provide: PasswordHasher, useFactory: () => new ScryptPasswordHasher() },
    AccountsService,
    OAuthClientsService,
    Authenticator,
    SignedUploadTokens,
    { provide: UploadTokens, useExisting: SignedUploadTokens },
    AccountsProjection,
    ApiKeysProjection,
    OAuthGrantsProjection,
    AccessTokensProjection,
    OAuthService,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [AccountsService, OAuthClientsService, Authenticator, UploadTokens],
})
export class IdentityModule {}
