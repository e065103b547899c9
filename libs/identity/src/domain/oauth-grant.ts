import { createHash, timingSafeEqual } from 'node:crypto';
import type { Decider } from '@gensvc/shared';

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
        readonly grantId: string;
        readonly accountId: string;
        readonly clientId: string;
        readonly scopes: readonly string[];
        readonly redirectUri: string;
        readonly codeHash: string;
        /** PKCE S256 challenge (base64url SHA-256 of the verifier), or null. */
        readonly codeChallenge: string | null;
        readonly issuedAt: string;
        readonly expiresAt: string;
      };
    }
  | {
      readonly type: 'OAuthTokensIssued';
      readonly data: {
        readonly grantId: string;
        readonly accountId: string;
        readonly clientId: string;
        /** `authorization_code` (the code is now spent) or `refresh_token` (the presented one is now rotated). */
        readonly via: 'authorization_code' | 'refresh_token';
        readonly scopes: readonly string[];
        readonly accessTokenId: string;
        readonly accessTokenHash: string;
        readonly accessExpiresAt: string;
        readonly refreshTokenHash: string;
        readonly refreshExpiresAt: string;
        readonly issuedAt: string;
      };
    }
  | { readonly type: 'OAuthAccessTokenRevoked'; readonly data: { readonly grantId: string; readonly accessTokenId: string; readonly revokedAt: string } }
  | {
      readonly type: 'OAuthGrantRevoked';
      readonly data: {
        readonly grantId: string;
        readonly accountId: string;
        /** `code_verifier_mismatch`: a failed PKCE attempt spends the code (it can never be redeemed afterwards). */
        readonly reason: RevokeReason;
        readonly revokedAt: string;
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
  | {
      readonly type: 'IssueCode';
      readonly grantId: string;
      readonly accountId: string;
      readonly clientId: string;
      readonly scopes: readonly string[];
      readonly redirectUri: string;
      readonly codeHash: string;
      readonly codeChallenge: string | null;
      readonly now: Date;
      readonly expiresAt: Date;
    }
  | {
      readonly type: 'RedeemCode';
      readonly clientId: string;
      /** SHA-256 of the presented code. */
      readonly codeHash: string;
      readonly redirectUri: string | undefined;
      readonly codeVerifier: string | undefined;
      readonly tokens: NewTokens;
      readonly now: Date;
    }
  | {
      readonly type: 'RefreshTokens';
      readonly clientId: string;
      readonly refreshHash: string;
      /** A narrower scope set, or undefined for the grant's scopes. */
      readonly scopes: readonly string[] | undefined;
      readonly tokens: NewTokens;
      readonly now: Date;
    }
  | { readonly type: 'RevokeAccessToken'; readonly accessTokenId: string; readonly now: Date }
  | { readonly type: 'RevokeGrant'; readonly reason: 'revoked_by_client'; readonly now: Date };

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
      grantId: state.grantId,
      accountId: state.accountId,
      clientId: state.clientId,
      via,
      scopes: [...scopes],
      accessTokenId: t.accessTokenId,
      accessTokenHash: t.accessTokenHash,
      accessExpiresAt: t.accessExpiresAt.toISOString(),
      refreshTokenHash: t.refreshTokenHash,
      refreshExpiresAt: t.refreshExpiresAt.toISOString(),
      issuedAt: now.toISOString(),
    },
  };
}

const revoke = (state: GrantFields, reason: RevokeReason, now: Date): OAuthGrantEvent => ({
  type: 'OAuthGrantRevoked',
  data: { grantId: state.grantId, accountId: state.accountId, reason, revokedAt: now.toISOString() },
});

export const oauthGrantDecider: Decider<OAuthGrantState, OAuthGrantCommand, OAuthGrantEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OAuthCodeIssued':
        return {
          status: 'pending',
          grantId: event.data.grantId,
          accountId: event.data.accountId,
          clientId: event.data.clientId,
          scopes: event.data.scopes,
          redirectUri: event.data.redirectUri,
          codeHash: event.data.codeHash,
          codeChallenge: event.data.codeChallenge,
          codeExpiresAt: event.data.expiresAt,
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
          refreshHash: event.data.refreshTokenHash,
          refreshExpiresAt: event.data.refreshExpiresAt,
          accessTokenIds: [...state.accessTokenIds, event.data.accessTokenId],
        };
      case 'OAuthAccessTokenRevoked':
        if (state.status === 'none') return state;
        return { ...state, revokedAccessTokenIds: [...state.revokedAccessTokenIds, event.data.accessTokenId] };
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
        if (state.status !== 'none') throw new Error(`grant ${command.grantId} already exists`);
        return [
          {
            type: 'OAuthCodeIssued',
            data: {
              grantId: command.grantId,
              accountId: command.accountId,
              clientId: command.clientId,
              scopes: [...command.scopes],
              redirectUri: command.redirectUri,
              codeHash: command.codeHash,
              codeChallenge: command.codeChallenge,
              issuedAt: command.now.toISOString(),
              expiresAt: command.expiresAt.toISOString(),
            },
          },
        ];
      case 'RedeemCode': {
        if (state.status === 'none' || !sameHash(state.codeHash, command.codeHash) || state.clientId !== command.clientId) {
          throw new OAuthGrantError('invalid_grant', 'the authorization code is not valid');
        }
        if (state.status === 'revoked') throw new OAuthGrantError('invalid_grant', 'the authorization code is not valid');
        // A second use of a code: whoever holds it may be an attacker; revoke what it issued.
        if (state.codeUsed) return [revoke(state, 'code_reuse', command.now)];
        if (Date.parse(state.codeExpiresAt) <= command.now.getTime()) throw new OAuthGrantError('invalid_grant', 'the authorization code has expired');
        if (command.redirectUri !== state.redirectUri) throw new OAuthGrantError('invalid_grant', 'redirect_uri does not match the authorization request');
        if (state.codeChallenge) {
          // A missing or wrong verifier spends the code: whoever guesses gets one try (RFC 9700 §4.8).
          if (!command.codeVerifier || !VERIFIER.test(command.codeVerifier) || !sameHash(pkceChallenge(command.codeVerifier), state.codeChallenge)) {
            return [revoke(state, 'code_verifier_mismatch', command.now)];
          }
        } else if (command.codeVerifier !== undefined) {
          throw new OAuthGrantError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
        }
        return [tokensEvent(state, 'authorization_code', state.scopes, command.tokens, command.now)];
      }
      case 'RefreshTokens': {
        if (state.status === 'none' || state.clientId !== command.clientId) throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
        if (state.status === 'revoked') throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
        if (state.rotatedRefreshHashes.some((h) => sameHash(h, command.refreshHash))) return [revoke(state, 'refresh_token_reuse', command.now)];
        if (!sameHash(state.refreshHash, command.refreshHash)) throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
        if (state.refreshExpiresAt && Date.parse(state.refreshExpiresAt) <= command.now.getTime()) {
          throw new OAuthGrantError('invalid_grant', 'the refresh token has expired');
        }
        const scopes = command.scopes ?? state.scopes;
        if (!scopes.length || scopes.some((s) => !state.scopes.includes(s))) {
          throw new OAuthGrantError('invalid_scope', 'scope must be a subset of the scopes granted');
        }
        return [tokensEvent(state, 'refresh_token', scopes, command.tokens, command.now)];
      }
      case 'RevokeAccessToken':
        if (state.status !== 'active' || !state.accessTokenIds.includes(command.accessTokenId) || state.revokedAccessTokenIds.includes(command.accessTokenId)) {
          return [];
        }
        return [{ type: 'OAuthAccessTokenRevoked', data: { grantId: state.grantId, accessTokenId: command.accessTokenId, revokedAt: command.now.toISOString() } }];
      case 'RevokeGrant':
        if (state.status === 'none' || state.status === 'revoked') return [];
        return [revoke(state, command.reason, command.now)];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
