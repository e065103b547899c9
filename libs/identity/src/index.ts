export * from './contracts';
export { IdentityModule } from './identity.module';
export { CreateAccountHandler, type CreateAccountCommand, type CreatedAccount } from './application/create-account/create-account.handler';
export { CloseAccountHandler, type CloseAccountCommand } from './application/close-account/close-account.handler';
export { GetAccountHandler, type GetAccountQuery } from './application/get-account/get-account.handler';
export { CreateApiKeyHandler, type CreateApiKeyCommand, type IssuedApiKey } from './application/create-api-key/create-api-key.handler';
export { RevokeApiKeyHandler, type RevokeApiKeyCommand } from './application/revoke-api-key/revoke-api-key.handler';
export { RegisterOAuthClientHandler, type RegisterOAuthClientCommand } from './application/register-oauth-client/register-oauth-client.handler';
export { Authenticator } from './application/authenticate/authenticator';
export { accessRuleOf } from './api/access.guard';
export { FindOAuthClientHandler, type OAuthClient } from './application/find-oauth-client/find-oauth-client.handler';
export { IssueAuthorizationCodeHandler } from './application/issue-authorization-code/issue-authorization-code.handler';
export { ExchangeAuthorizationCodeHandler } from './application/exchange-authorization-code/exchange-authorization-code.handler';
export { RefreshTokensHandler } from './application/refresh-tokens/refresh-tokens.handler';
export { RevokeTokenHandler } from './application/revoke-token/revoke-token.handler';
export type { TokenResponse } from './application/oauth-grants';
export { routeTable, type RouteEntry } from './api/route-table';
export { CONSOLE_CLIENT_ID, CONSOLE_CLIENT_NAME } from './application/console-client';

import { AccountsProjection, ApiKeysProjection, OAuthGrantsProjection, AccessTokensProjection } from './application/authenticate/identity.projections';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const IDENTITY_PROJECTIONS = [AccountsProjection, ApiKeysProjection, OAuthGrantsProjection, AccessTokensProjection] as const;
