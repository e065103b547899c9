import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { APP_GUARD } from '@nestjs/core';
import { Authenticator } from './application/authenticate/authenticator';
import { AccessTokensProjection, AccountsProjection, ApiKeysProjection, OAuthGrantsProjection } from './application/authenticate/identity.projections';
import { CloseAccountHandler } from './application/close-account/close-account.handler';
import { CreateAccountHandler } from './application/create-account/create-account.handler';
import { CreateApiKeyHandler } from './application/create-api-key/create-api-key.handler';
import { ExchangeAuthorizationCodeHandler } from './application/exchange-authorization-code/exchange-authorization-code.handler';
import { FindOAuthClientHandler } from './application/find-oauth-client/find-oauth-client.handler';
import { GetAccountHandler } from './application/get-account/get-account.handler';
import { GetApiKeyHandler } from './application/get-api-key/get-api-key.handler';
import { IssueAuthorizationCodeHandler } from './application/issue-authorization-code/issue-authorization-code.handler';
import { IssueUploadTokenHandler } from './application/issue-upload-token/issue-upload-token.handler';
import { ListApiKeysHandler } from './application/list-api-keys/list-api-keys.handler';
import { OAuthGrantTokens } from './application/oauth-grants';
import { RefreshTokensHandler } from './application/refresh-tokens/refresh-tokens.handler';
import { RegisterOAuthClientHandler } from './application/register-oauth-client/register-oauth-client.handler';
import { RevokeApiKeyHandler } from './application/revoke-api-key/revoke-api-key.handler';
import { RevokeTokenHandler } from './application/revoke-token/revoke-token.handler';
import { SignInHandler } from './application/sign-in/sign-in.handler';
import { UploadTokenSigner } from './application/upload-token-signer';
import { UploadTokensService } from './application/upload-tokens/upload-tokens.service';
import { VerifyUploadTokenHandler } from './application/verify-upload-token/verify-upload-token.handler';
import { OAuthAuthorizationController } from './api/oauth-authorization.controller';
import { OAuthMetadataController } from './api/oauth-metadata.controller';
import { OAuthRevocationController } from './api/oauth-revocation.controller';
import { OAuthTokenController } from './api/oauth-token.controller';
import { ApiKeysController } from './api/api-keys.controller';
import { AccessGuard } from './api/access.guard';
import { UploadTokens } from './contracts/upload-tokens';
import { PasswordHasher, ScryptPasswordHasher } from './infrastructure/password-hasher';

/**
 * Identity and access: accounts, API keys, OAuth 2.0 authorization server, upload tokens,
 * and the app-wide guard that enforces every route's access rule. Imports: the storage module
 * and the shared counters (`SharedCounters`, failed sign-ins).
 */
@Module({})
export class IdentityModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: IdentityModule,
      imports: deps.imports,
      controllers: [OAuthMetadataController, OAuthAuthorizationController, OAuthTokenController, OAuthRevocationController, ApiKeysController],
      providers: [
        { provide: PasswordHasher, useFactory: () => new ScryptPasswordHasher() },
        // accounts and API keys
        CreateAccountHandler,
        CloseAccountHandler,
        GetAccountHandler,
        SignInHandler,
        CreateApiKeyHandler,
        RevokeApiKeyHandler,
        GetApiKeyHandler,
        ListApiKeysHandler,
        // OAuth clients and grants
        RegisterOAuthClientHandler,
        FindOAuthClientHandler,
        OAuthGrantTokens,
        IssueAuthorizationCodeHandler,
        ExchangeAuthorizationCodeHandler,
        RefreshTokensHandler,
        RevokeTokenHandler,
        // credentials
        Authenticator,
        AccountsProjection,
        ApiKeysProjection,
        OAuthGrantsProjection,
        AccessTokensProjection,
        UploadTokenSigner,
        IssueUploadTokenHandler,
        VerifyUploadTokenHandler,
        UploadTokensService,
        { provide: UploadTokens, useExisting: UploadTokensService },
        { provide: APP_GUARD, useClass: AccessGuard },
      ],
      exports: [CreateAccountHandler, CloseAccountHandler, GetAccountHandler, CreateApiKeyHandler, RevokeApiKeyHandler, RegisterOAuthClientHandler, Authenticator, UploadTokens],
    };
  }
}
