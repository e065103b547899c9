import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/shared';
import { APP_GUARD } from '@nestjs/core';
import { AccountsService } from './application/accounts.service';
import { Authenticator } from './application/authenticator';
import { AccessTokensProjection, AccountsProjection, ApiKeysProjection, OAuthGrantsProjection } from './application/identity.projections';
import { OAuthService } from './application/oauth.service';
import { OAuthController } from './api/oauth.controller';
import { ApiKeysController } from './api/api-keys.controller';
import { OAuthClientsService } from './application/oauth-clients.service';
import { SignedUploadTokens } from './application/upload-tokens.service';
import { AccessGuard } from './api/access.guard';
import { UploadTokens } from './contracts/upload-tokens';
import { PasswordHasher, ScryptPasswordHasher } from './infrastructure/password-hasher';

/**
 * Identity and access: accounts, API keys, OAuth 2.0 authorization server, upload tokens,
 * and the app-wide guard that enforces every route's access rule. Imports: the storage module;
 * in the API also the shared counters (`SharedCounters`, failed sign-ins), optional elsewhere.
 */
@Module({})
export class IdentityModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: IdentityModule,
      imports: deps.imports,
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
    };
  }
}
