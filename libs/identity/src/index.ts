export * from './contracts';
export { IdentityModule } from './identity.module';
export { AccountsService, type CreatedAccount, type IssuedApiKey } from './application/accounts.service';
export { Authenticator } from './application/authenticator';
export { accessRuleOf } from './api/access.guard';
export { OAuthClientsService, type OAuthClient } from './application/oauth-clients.service';
export { OAuthService, type TokenResponse } from './application/oauth.service';
export { routeTable, type RouteEntry } from './api/route-table';
export { CONSOLE_CLIENT_ID, CONSOLE_CLIENT_NAME } from './application/console-client';

import { AccountsProjection, ApiKeysProjection, OAuthGrantsProjection, AccessTokensProjection } from './application/identity.projections';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const IDENTITY_PROJECTIONS = [AccountsProjection, ApiKeysProjection, OAuthGrantsProjection, AccessTokensProjection] as const;
