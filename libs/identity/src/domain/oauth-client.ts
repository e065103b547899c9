import './identity-events.v1';
import { AppError, checkPlainText } from '@gensvc/kernel';
import type { Command, Decider } from '@gensvc/kernel';

/** Events of the `oauthclient-<client id>` stream. A confidential client's secret is stored as SHA-256 only. */
export type OAuthClientEvent = {
  readonly type: 'OAuthClientRegistered';
  readonly data: {
    readonly client_id: string;
    readonly name: string;
    readonly redirect_uris: readonly string[];
    readonly public: boolean;
    readonly secret_hash: string | null;
    readonly registered_at: string;
  };
};

export type OAuthClientState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly clientId: string; readonly name: string; readonly redirectUris: readonly string[]; readonly public: boolean; readonly secretHash: string | null };

export type OAuthClientCommand = Command<
  'RegisterOAuthClient',
  { readonly client_id: string; readonly name: string; readonly redirect_uri: string; readonly public: boolean; readonly secret_hash: string | null }
>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A registered redirect URI: absolute, no fragment, https (http only for loopback hosts,
 * RFC 8252 native apps). Requests must repeat it exactly (string equality).
 */
export function checkRedirectUri(uri: string): string {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'redirect-uri must be an absolute URL');
  }
  if (uri.length > 2000) throw new AppError('VALIDATION_ERROR', 'redirect-uri is too long');
  if (u.hash || uri.includes('#')) throw new AppError('VALIDATION_ERROR', 'redirect-uri must not have a fragment');
  if (u.username || u.password) throw new AppError('VALIDATION_ERROR', 'redirect-uri must not carry credentials');
  if (!(u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname)))) {
    throw new AppError('VALIDATION_ERROR', 'redirect-uri must use https (http only for localhost)');
  }
  return uri;
}

export const oauthClientDecider: Decider<OAuthClientState, OAuthClientCommand, OAuthClientEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (_state, event) => ({
    status: 'active',
    clientId: event.data.client_id,
    name: event.data.name,
    redirectUris: event.data.redirect_uris,
    public: event.data.public,
    secretHash: event.data.secret_hash,
  }),
  decide(command, state) {
    if (state.status !== 'none') throw new AppError('CONFLICT', `client ${command.data.client_id} already exists`);
    const name = command.data.name.trim();
    if (name.length < 1 || name.length > 200) throw new AppError('VALIDATION_ERROR', 'name must be 1 to 200 characters');
    checkPlainText(name, 'name');
    if (command.data.public !== (command.data.secret_hash === null)) throw new Error('a confidential client needs a secret, a public one has none');
    return [
      {
        type: 'OAuthClientRegistered',
        data: {
          client_id: command.data.client_id,
          name,
          redirect_uris: [checkRedirectUri(command.data.redirect_uri)],
          public: command.data.public,
          secret_hash: command.data.secret_hash,
          registered_at: command.metadata.now.toISOString(),
        },
      },
    ];
  },
};
