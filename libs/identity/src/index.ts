export * from './contracts';
export { IdentityModule } from './identity.module';
export { AccountsService, type CreatedAccount, type IssuedApiKey } from './application/create-account/create-account.handler';
export { Authenticator } from './application/authenticate/authenticator';
export { accessRuleOf } from './api/access.guard';
export { OAuthClientsService, type OAuthClient } from './application/find-oauth-client/find-oauth-client.handler';
export { OAuthService, type TokenResponse } from './application/oauth-grants';
export { routeTable, type RouteEntry } from './api/route-table';
export { CONSOLE_CLIENT_ID, CONSOLE_CLIENT_NAME } from './application/console-client';
