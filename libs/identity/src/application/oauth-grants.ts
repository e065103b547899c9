import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '@gensvc/config';
import { EventStore, SubscriptionEngine, caughtUp, handleCommand } from '@gensvc/event-sourcing';
import { formatCredential, hashSecret } from '../domain/credentials';
import { OAuthGrantError, oauthGrantDecider, type NewTokens, type OAuthGrantCommand, type RevokeReason } from '../domain/oauth-grant';
import { oauthGrantStream } from './identity-streams';

/** Authorization codes live one minute (RFC 6749 recommends at most ten). */
export const CODE_TTL_MS = 60_000;
/** Refresh tokens rotate on every use and lapse after 30 days without use. */
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
}

export const grantSecret = () => randomBytes(32).toString('base64url');

/**
 * The token endpoint's common part (authorization code and refresh token grants): new
 * token credentials, and the command on the grant stream that issues them or refuses.
 */
@Injectable()
export class OAuthGrantTokens {
  constructor(
    private readonly events: EventStore,
    private readonly config: AppConfig,
    private readonly engine: SubscriptionEngine,
  ) {}

  /** A new access token and refresh token (of the grant `grantBody`); only their hashes go into events. */
  newTokens(grantBody: string, now: Date): { tokens: NewTokens; access: string; refresh: string } {
    const at = now.getTime();
    const tokenId = randomBytes(16).toString('hex');
    const access = formatCredential('gsa', tokenId, grantSecret());
    const refresh = formatCredential('gsr', grantBody, grantSecret());
    return {
      access,
      refresh,
      tokens: {
        accessTokenId: `at_${tokenId}`,
        accessTokenHash: hashSecret(access),
        accessExpiresAt: new Date(at + this.config.accessTokenTtlSeconds * 1000),
        refreshTokenHash: hashSecret(refresh),
        refreshExpiresAt: new Date(at + REFRESH_TTL_MS),
      },
    };
  }

  /** Runs `command` on the grant; the token response when it issued tokens, else `invalid_grant` with `refusal`'s text. */
  async issue(grantId: string, command: OAuthGrantCommand, access: string, refresh: string, refusal: (reason: RevokeReason | undefined) => string): Promise<TokenResponse> {
    const result = await handleCommand(this.events, oauthGrantStream(grantId), oauthGrantDecider, command);
    // The answer comes from the command's own events. When the read models lag it is given
    // all the same: the code is used up and the old refresh token rotated, so tokens not
    // handed out now could not be asked for again (the access token authenticates once the
    // read models caught up).
    await caughtUp(this.engine.waitFor(result.position));
    const issued = result.events.find((e) => e.type === 'OAuthTokensIssued');
    if (!issued || issued.type !== 'OAuthTokensIssued') {
      const revoked = result.events.find((e) => e.type === 'OAuthGrantRevoked');
      throw new OAuthGrantError('invalid_grant', refusal(revoked?.type === 'OAuthGrantRevoked' ? revoked.data.reason : undefined));
    }
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.config.accessTokenTtlSeconds,
      refresh_token: refresh,
      scope: issued.data.scopes.join(' '),
    };
  }
}
