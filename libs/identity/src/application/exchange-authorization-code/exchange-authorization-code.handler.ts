import { Injectable } from '@nestjs/common';
import type { Command } from '@gensvc/kernel';
import { hashSecret, parseCredential } from '../../domain/credentials';
import { OAuthGrantError } from '../../domain/oauth-grant';
import { OAuthGrantTokens, type TokenResponse } from '../oauth-grants';

/** `grant_type=authorization_code` at the token endpoint, for the authenticated client: the fields as sent. */
export type ExchangeAuthorizationCodeCommand = Command<
  'ExchangeAuthorizationCode',
  { readonly client_id: string; readonly code: unknown; readonly redirect_uri: unknown; readonly code_verifier: unknown }
>;

/**
 * Redeems a code once (OAuthTokensIssued; PKCE checked). A code used again, or a wrong
 * verifier, spends it and revokes every token issued from it (`invalid_grant`).
 */
@Injectable()
export class ExchangeAuthorizationCodeHandler {
  constructor(private readonly grants: OAuthGrantTokens) {}

  async execute(cmd: ExchangeAuthorizationCodeCommand): Promise<TokenResponse> {
    const { client_id: clientId, code, redirect_uri: redirectUri, code_verifier: codeVerifier } = cmd.data;
    const parsed = parseCredential(code);
    if (!parsed || parsed.kind !== 'gsc') throw new OAuthGrantError('invalid_grant', 'the authorization code is not valid');
    if (redirectUri !== undefined && typeof redirectUri !== 'string') throw new OAuthGrantError('invalid_request', 'redirect_uri must be a string');
    if (codeVerifier !== undefined && typeof codeVerifier !== 'string') throw new OAuthGrantError('invalid_request', 'code_verifier must be a string');
    const { tokens, access, refresh } = this.grants.newTokens(parsed.id, cmd.metadata.now);
    return this.grants.issue(
      `grant_${parsed.id}`,
      { type: 'RedeemCode', data: { client_id: clientId, code_hash: hashSecret(code as string), redirect_uri: redirectUri, code_verifier: codeVerifier, tokens }, metadata: cmd.metadata },
      access,
      refresh,
      (reason) =>
        reason === 'code_verifier_mismatch'
          ? 'code_verifier does not match the code challenge; the authorization code is spent'
          : 'the authorization code was already used; every token issued from it is revoked',
    );
  }
}
