import { Injectable } from '@nestjs/common';
import type { Command } from '@gensvc/kernel';
import { hashSecret, parseCredential } from '../../domain/credentials';
import { OAuthGrantError } from '../../domain/oauth-grant';
import { OAuthGrantTokens, type TokenResponse } from '../oauth-grants';

/** `grant_type=refresh_token` at the token endpoint, for the authenticated client: the fields as sent. */
export type RefreshTokensCommand = Command<'RefreshTokens', { readonly client_id: string; readonly refresh_token: unknown; readonly scope: unknown }>;

/** Rotation: new tokens for a current refresh token (scopes may narrow); a reused refresh token revokes the grant. */
@Injectable()
export class RefreshTokensHandler {
  constructor(private readonly grants: OAuthGrantTokens) {}

  async execute(cmd: RefreshTokensCommand): Promise<TokenResponse> {
    const { client_id: clientId, refresh_token: refreshToken, scope } = cmd.data;
    const parsed = parseCredential(refreshToken);
    if (!parsed || parsed.kind !== 'gsr') throw new OAuthGrantError('invalid_grant', 'the refresh token is not valid');
    let scopes: string[] | undefined;
    if (scope !== undefined) {
      if (typeof scope !== 'string') throw new OAuthGrantError('invalid_request', 'scope must be a string');
      scopes = [...new Set(scope.split(' ').filter(Boolean))];
    }
    const { tokens, access, refresh } = this.grants.newTokens(parsed.id, cmd.metadata.now);
    return this.grants.issue(
      `grant_${parsed.id}`,
      { type: 'RefreshTokens', data: { client_id: clientId, refresh_hash: hashSecret(refreshToken as string), scopes, tokens }, metadata: cmd.metadata },
      access,
      refresh,
      () => 'the refresh token was already used; the grant is revoked',
    );
  }
}
