/** Read models of the identity context (collections in the read store). */
export const ACCOUNTS = 'identity_accounts';
export const API_KEYS = 'identity_api_keys';
export const OAUTH_CLIENTS = 'identity_oauth_clients';
export const OAUTH_GRANTS = 'identity_oauth_grants';
export const ACCESS_TOKENS = 'identity_access_tokens';

export type AccountDoc = {
  _id: string;
  name: string;
  email: string | null;
  status: 'active' | 'closed';
  opened_at: string;
};

export type ApiKeyDoc = {
  _id: string;
  account_id: string;
  secret_hash: string;
  status: 'active' | 'revoked';
  issued_at: string;
  revoked_at: string | null;
};

export type OAuthClientDoc = {
  _id: string;
  name: string;
  redirect_uris: string[];
  public: boolean;
};

export type OAuthGrantDoc = {
  _id: string;
  account_id: string;
  client_id: string;
  scopes: string[];
  status: 'pending' | 'active' | 'revoked';
};

export type AccessTokenDoc = {
  _id: string;
  grant_id: string;
  account_id: string;
  client_id: string;
  scopes: string[];
  secret_hash: string;
  expires_at: string;
  revoked: boolean;
};
