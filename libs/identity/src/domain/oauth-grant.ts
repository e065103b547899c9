import './identity-events.v1';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Command, Decider } from '@gensvc/kernel';

/**
 * One authorization of a client by an account (`oauthgrant-<grant id>`): the authorization
 * code, then the tokens issued from it and from its rotating refresh tokens. Only hashes of
 * codes and tokens are stored. A reused code or a reused (rotated) refresh token revokes
 * the whole grant (RFC 9700), so every token it issued stops working.
 */
export type OAuthGrantEvent =
  | {
      readonly type: 'OAuthCodeIssued';
      readonly data: {
        readonly grant_id: string;
        readonly account_id: string;
        readonly client_id: string;
        readonly scopes: readonly string[];
        readonly redirect_uri: string;
        readonly code_hash: string;
        /** PKCE S256 challenge (base64url SHA-256 of the verifier), or null. */
        readonly code_challenge: string | null;
        readonly issued_at: string;
        readonly expires_at: string;
      };
    }
  | {
      readonly type: 'OAuthTokensIssued';
      readonly data: {
        readonly grant_id: string;
        readonly account_id: string;
        readonly client_id: string;
        /** `authorization_code` (the code is now spent) or `refresh_token` (the presented one is now rotated). */
        readonly via: 'authorization_code' | 'refresh_token';
        readonly scopes: readonly string[];
        readonly access_token_id: string;
        readonly access_token_hash: string;
        readonly access_expires_at: string;
        readonly refresh_token_hash: string;
        readonly refresh_expires_at: string;
        readonly issued_at: string;
      };
    }
  | { readonly type: 'OAuthAccessTokenRevoked'; readonly data: { readonly grant_id: string; readonly access_token_id: string; readonly revoked_at: string } }
  | {
      readonly type: 'OAuthGrantRevoked';
      readonly data: {
        readonly grant_id: string;
        readonly account_id: string;
        /** `code_verifier_mismatch`: a failed PKCE attempt spends the code (it can never be redeemed afterwards). */
        readonly reason: RevokeReason;
        readonly revoked_at: string;
      };
    };

export type RevokeReason = 'code_reuse' | 'refresh_token_reuse' | 'revoked_by_client' | 'code_verifier_mismatch';

interface GrantFields {
  readonly grantId: string;
  readonly accountId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
  readonly codeHash: string;
  readonly codeChallenge: string | null;
  readonly codeExpiresAt: string;
  readonly codeUsed: boolean;
  readonly refreshHash: string | null;
  readonly refreshExpiresAt: string | null;
  /** Hashes of refresh tokens already rotated away: presenting one again is theft. */
  readonly rotatedRefreshHashes: readonly string[];
  readonly accessTokenIds: readonly string[];
  readonly revokedAccessTokenIds: readonly string[];
}

export type OAuthGrantState =
  | { readonly status: 'none' }
  | ({ readonly status: 'pending' | 'active' | 'revoked' } & GrantFields);

export interface NewTokens {
  readonly accessTokenId: string;
  readonly accessTokenHash: string;
  readonly accessExpiresAt: Date;
  readonly refreshTokenHash: string;
  readonly refreshExpiresAt: Date;
}

export type OAuthGrantCommand =
  | Command<
      'IssueCode',
      {
        readonly grant_id: string;
        readonly account_id: string;
        readonly client_id: string;
        readonly scopes: readonly string[];
        readonly redirect_uri: string;
        readonly code_hash: string;
        readonly code_challenge: string | null;
        readonly expires_at: Date;
      }
    >
  | Command<
      'RedeemCode',
      {
        readonly client_id: string;
        /** SHA-256 of the presented code. */
        readonly code_hash: string;
        readonly redirect_uri: string | undefined;
        readonly code_verifier: string | undefined;
        readonly tokens: NewTokens;
      }
    >
  | Command<
      'RefreshTokens',
      {
        readonly client_id: string;
        readonly refresh_hash: string;
        /** A narrower scope set, or undefined for the grant's scopes. */
        readonly scopes: readonly string[] | undefined;
        readonly tokens: NewTokens;
      }
    >
  | Command<'RevokeAccessToken', { readonly access_token_id: string }>
  | Command<'RevokeGrant', { readonly reason: 'revoked_by_client' }>;

/** Why a token request fails (RFC 6749 §5.2), for the token endpoint to answer. */
export class OAuthGrantError extends Error {
  constructor(
    readonly error: 'invalid_grant' | 'invalid_request' | 'invalid_scope' | 'unauthorized_client',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthGrantError';
  }
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

function sameHash(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

function tokensEvent(state: GrantFields, via: 'authorization_code' | 'refresh_token', scopes: readonly string[], t: NewTokens, now: Date): OAuthGrantEvent {
  return {
    type: 'OAuthTokensIssued',
    data: {
      grant_id: state.grantId,
      account_id: state.accountId,
      client_id: state.clientId,
      via,
      scopes: [...scopes],
      access_token_id: t.accessTokenId,
      access_token_hash: t.accessTokenHash,
      access_expires_at: t.accessExpiresAt.toISOString(),
      refresh_token_hash: t.refreshTokenHash,
      refresh_expires_at: t.refreshExpiresAt.toISOString(),
      issued_at: now.toISOString(),
    },
  };
}

const revoke = (state: GrantFields, reason: RevokeReason, now: Date): OAuthGrantEvent => ({
  type: 'OAuthGrantRevoked',
  data: { grant_id: state.grantId, account_id: state.accountId, reason, revoked_at: now.toISOString() },
});

export const oauthGrantDecider: Decider<OAuthGrantState, OAuthGrantCommand, OAuthGrantEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OAuthCodeIssued':
        return {
          status: 'pending',
          grantId: event.data.grant_id,
          accountId: event.data.account_id,
          clientId: event.data.client_id,
          scopes: event.data.scopes,
          redirectUri: event.data.redirect_uri,
          codeHash: event.data.code_hash,
          codeChallenge: event.data.code_challenge,
          codeExpiresAt: event.data.expires_at,
          codeUsed: false,
          refreshHash: null,
          refreshExpiresAt: null,
          rotatedRefreshHashes: [],
          accessTokenIds: [],
          revokedAccessTokenIds: [],
        };
      case 'OAuthTokensIssued':
        if (state.status === 'none') return state;
        return {
          ...state,
          status: state.status === 'revoked' ? 'revoked' : 'active',
          codeUsed: true,
          rotatedRefreshHashes: state.refreshHash ? [...state.rotatedRefreshHashes, state.refreshHash] : state.rotatedRefreshHashes,
          refreshHash: event.data.refresh_token_hash,
          refreshExpiresAt: event.data.refresh_expires_at,
          accessTokenIds: [...state.accessTokenIds, event.data.access_token_id],
        };
      case 'OAuthAccessTokenRevoked':
        if (state.status === 'none') return state;
        return { ...state, revokedAccessTokenIds: [...state.revokedAccessTokenIds, event.data.access_token_id] };
      case 'OAuthGrantRevoked':
        if (state.status === 'none') return state;
        return { ...state, status: 'revoked', codeUsed: true };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'IssueCode':
        if (state.status !== 'none') throw new Error(`grant ${command.data.grant_id} already exists`);
        return [
          {
            type: 'OAuthCodeIssued',
            data: {
              grant_id: command.data.grant_id,
              account_id: command.data.account_id,
              client_id: command.data.client_id,
              scopes: [...command.data.scopes],
              redirect_uri: command.data.redirect_uri,
              code_hash: command.data.code_hash,
              code_challenge: command.data.code_challenge,
              issued_at: command.metadata.now.toISOString(),
              expires_at: command.data.expires_at.toISOString(),
            },
          },
        ];
      case 'RedeemCode': {
        if (state.status === 'none' || !sameHash(state.codeHash, command.data.code_hash) || state.clientId !== command.data.client_id) {
          throw new OAuthGrantError('invalid_grant', 'the authorization code is not valid');
        }
        if (state.status === 'revoked') throw new OAuthGrantError('invalid_grant', 'the authorization code is not valid');
        // A second use of a code: whoever holds it may be an attacker; revoke what it issued.
        if (state.codeUsed) return [revoke(state, 'code_reuse', command.metadata.now)];
        if (Date.parse(state.codeExpiresAt) <= command.metadata.now.getTime()) throw new OAuthGrantError('invalid_grant', 'the authorization code has expired');
        if (command.data.redirect_uri !== state.redirectUri) throw new OAuthGrantError('invalid_grant', 'redirect_uri does not match the authorization request');
        if (state.codeChallenge) {
          // A missing or wrong verifier spends the code: whoever guesses gets one try (RFC 9700 §4.8).
          if (!command.data.code_verifier || !VERIFIER.test(command.data.code_verifier) || !sameHash(pkceChallenge(command.data.code_verifier), state.codeChallenge)) {
            return [revoke(state, 'code_verifier_mismatch', command.metadata.now)];
          }
        } else if (command.data.code_verifier !== undefined) {
          throw new OAuthGrantError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
        }
        return [tokensEvent(state, 'authorization_code', state.scopes, command.data.tokens, command.metadata.now)];
      }
      case 'RefreshTokens': {
        if (state.status === 'none' || state.clientId !== command.data.client_id) throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
        if (state.status === 'revoked') throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
        if (state.rotatedRefreshHashes.some((h) => sameHash(h, command.data.refresh_hash))) return [revoke(state, 'refresh_token_reuse', command.metadata.now)];
        if (!sameHash(state.refreshHash, command.data.refresh_hash)) throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
        if (state.refreshExpiresAt && Date.parse(state.refreshExpiresAt) <= command.metadata.now.getTime()) {
          throw new OAuthGrantError('invalid_grant', 'the refresh token has expired');
        }
        const scopes = command.data.scopes ?? state.scopes;
        if (!scopes.length || scopes.some((s) => !state.scopes.includes(s))) {
          throw new OAuthGrantError('invalid_scope', 'scope must be a subset of the scopes granted');
        }
        return [tokensEvent(state, 'refresh_token', scopes, command.data.tokens, command.metadata.now)];
      }
      case 'RevokeAccessToken':
        if (state.status !== 'active' || !state.accessTokenIds.includes(command.data.access_token_id) || state.revokedAccessTokenIds.includes(command.data.access_token_id)) {
          return [];
        }
        return [{ type: 'OAuthAccessTokenRevoked', data: { grant_id: state.grantId, access_token_id: command.data.access_token_id, revoked_at: command.metadata.now.toISOString() } }];
      case 'RevokeGrant':
        if (state.status === 'none' || state.status === 'revoked') return [];
        return [revoke(state, command.data.reason, command.metadata.now)];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
