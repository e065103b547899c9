import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import type { AccountEvent } from '../../domain/account';
import type { ApiKeyEvent } from '../../domain/api-key';
import type { OAuthGrantEvent } from '../../domain/oauth-grant';
import { ACCESS_TOKENS, ACCOUNTS, API_KEYS, OAUTH_GRANTS, type AccessTokenDoc, type AccountDoc, type ApiKeyDoc, type OAuthGrantDoc } from '../read-models';

type GrantEvent<T extends OAuthGrantEvent['type']> = Extract<OAuthGrantEvent, { type: T }>;

/** Accounts: whether an account is still active (every credential check reads it). */
@AsProjection()
@Injectable()
export class AccountsProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<AccountDoc, '_id'>, AccountEvent>({
    name: 'identity.accounts',
    collection: ACCOUNTS,
    handles: ['AccountOpened', 'AccountClosed'],
    documentId: (e) => e.data.account_id,
    evolve(doc, e) {
      switch (e.type) {
        case 'AccountOpened':
          return { name: e.data.name, email: e.data.email, status: 'active', opened_at: e.data.opened_at };
        case 'AccountClosed':
          return doc ? { ...doc, status: 'closed' } : null;
      }
    },
  });
}

/** API keys by key id: the hash to compare with and whether the key is revoked. */
@AsProjection()
@Injectable()
export class ApiKeysProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<ApiKeyDoc, '_id'>, ApiKeyEvent>({
    name: 'identity.api_keys',
    collection: API_KEYS,
    handles: ['ApiKeyIssued', 'ApiKeyRevoked'],
    documentId: (e) => e.data.key_id,
    indexes: [{ keys: { account_id: 1 } }],
    evolve(doc, e) {
      switch (e.type) {
        case 'ApiKeyIssued':
          return { account_id: e.data.account_id, secret_hash: e.data.secret_hash, status: 'active', issued_at: e.data.issued_at, revoked_at: null };
        case 'ApiKeyRevoked':
          return doc ? { ...doc, status: 'revoked', revoked_at: e.data.revoked_at } : null;
      }
    },
  });
}

/** OAuth grants: pending (code issued), active (tokens issued) or revoked. */
@AsProjection()
@Injectable()
export class OAuthGrantsProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<OAuthGrantDoc, '_id'>, GrantEvent<'OAuthCodeIssued' | 'OAuthTokensIssued' | 'OAuthGrantRevoked'>>({
    name: 'identity.oauth_grants',
    collection: OAUTH_GRANTS,
    handles: ['OAuthCodeIssued', 'OAuthTokensIssued', 'OAuthGrantRevoked'],
    documentId: (e) => e.data.grant_id,
    evolve(doc, e) {
      switch (e.type) {
        case 'OAuthCodeIssued':
          return { account_id: e.data.account_id, client_id: e.data.client_id, scopes: [...e.data.scopes], status: 'pending' };
        case 'OAuthTokensIssued':
          return doc ? { ...doc, status: doc.status === 'revoked' ? 'revoked' : 'active' } : null;
        case 'OAuthGrantRevoked':
          return doc ? { ...doc, status: 'revoked' } : null;
      }
    },
  });
}

/** OAuth access tokens by token id: hash, scopes, expiry (the grant's status is checked too). */
@AsProjection()
@Injectable()
export class AccessTokensProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Omit<AccessTokenDoc, '_id'>, GrantEvent<'OAuthTokensIssued' | 'OAuthAccessTokenRevoked'>>({
    name: 'identity.access_tokens',
    collection: ACCESS_TOKENS,
    handles: ['OAuthTokensIssued', 'OAuthAccessTokenRevoked'],
    documentId: (e) => e.data.access_token_id,
    evolve(doc, e) {
      switch (e.type) {
        case 'OAuthTokensIssued':
          return {
            grant_id: e.data.grant_id,
            account_id: e.data.account_id,
            client_id: e.data.client_id,
            scopes: [...e.data.scopes],
            secret_hash: e.data.access_token_hash,
            expires_at: e.data.access_expires_at,
            revoked: false,
          };
        case 'OAuthAccessTokenRevoked':
          return doc ? { ...doc, revoked: true } : null;
      }
    },
  });
}
