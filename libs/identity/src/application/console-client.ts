import type { OAuthClient } from './find-oauth-client/find-oauth-client.handler';

/**
 * The web console is a first-party public OAuth client the service registers for itself:
 * a built-in registration derived from the configuration (not an event), so it exists on
 * every deployment from the first start, follows `PUBLIC_BASE_URL` when that changes, and
 * cannot be deleted or taken over. Its one redirect URI is `{PUBLIC_BASE_URL}/console/callback`;
 * PKCE is required as for every public client.
 */
export const CONSOLE_CLIENT_ID = 'client_gensvcconsole';
export const CONSOLE_CLIENT_NAME = 'gensvc console';

export function consoleClient(publicBaseUrl: string): OAuthClient {
  return {
    status: 'active',
    clientId: CONSOLE_CLIENT_ID,
    name: CONSOLE_CLIENT_NAME,
    redirectUris: [`${publicBaseUrl.replace(/\/+$/, '')}/console/callback`],
    public: true,
    secretHash: null,
  };
}
