import { Controller, Logger, Post, Req, Res } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import oauth2orize from 'oauth2orize';
import { Clock } from '@gensvc/kernel';
import { OpenApiOperations, Public } from '@gensvc/http';
import { ExchangeAuthorizationCodeHandler } from '../application/exchange-authorization-code/exchange-authorization-code.handler';
import { FindOAuthClientHandler, type OAuthClient } from '../application/find-oauth-client/find-oauth-client.handler';
import { RefreshTokensHandler } from '../application/refresh-tokens/refresh-tokens.handler';
import { authenticateClient } from './oauth-client-authentication';
import { OAUTH_TOKEN_OPENAPI } from './oauth-token.openapi';
import { runMiddleware } from './run-middleware';
import { sendTokenError, TokenEndpointError } from './token-endpoint-error';

/**
 * The token endpoint of the OAuth 2.0 authorization server (oauth2orize), mounted at
 * `{PUBLIC_BASE_URL}/token`: the authorization code grant (with the PKCE verifier) and
 * refresh token rotation.
 */
@Controller()
@Public()
@OpenApiOperations(OAUTH_TOKEN_OPENAPI)
export class OAuthTokenController {
  private readonly logger = new Logger('OAuth');
  private readonly tokenMiddleware: RequestHandler;

  constructor(
    private readonly findClient: FindOAuthClientHandler,
    private readonly exchangeCode: ExchangeAuthorizationCodeHandler,
    private readonly refreshTokens: RefreshTokensHandler,
    private readonly clock: Clock,
  ) {
    const server = oauth2orize.createServer<OAuthClient>();
    server.exchange(
      oauth2orize.exchange.authorizationCode(((client: OAuthClient, code: string, redirectURI: string, body: Record<string, unknown>, done: (...a: unknown[]) => void) => {
        this.exchangeCode
          .execute({ type: 'ExchangeAuthorizationCode', data: { client_id: client.clientId, code, redirect_uri: redirectURI, code_verifier: body.code_verifier }, metadata: { now: this.clock.now() } })
          .then((t) => done(null, t.access_token, t.refresh_token, { expires_in: t.expires_in, scope: t.scope }), done);
      }) as never),
    );
    server.exchange(
      oauth2orize.exchange.refreshToken(((client: OAuthClient, refreshToken: string, _scope: unknown, body: Record<string, unknown>, done: (...a: unknown[]) => void) => {
        this.refreshTokens
          .execute({ type: 'RefreshTokens', data: { client_id: client.clientId, refresh_token: refreshToken, scope: body.scope }, metadata: { now: this.clock.now() } })
          .then((t) => done(null, t.access_token, t.refresh_token, { expires_in: t.expires_in, scope: t.scope }), done);
      }) as never),
    );
    this.tokenMiddleware = server.token() as unknown as RequestHandler;
  }

  @Post('token')
  async token(@Req() req: Request & { user?: unknown }, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!body.grant_type) throw new TokenEndpointError('invalid_request', 'grant_type is required');
      if (typeof body.grant_type !== 'string') throw new TokenEndpointError('invalid_request', 'grant_type must be a string');
      req.user = await authenticateClient(req, this.findClient);
      res.status(200);
      const err = await runMiddleware(this.tokenMiddleware, req, res);
      if (err) sendTokenError(res, err, this.logger);
    } catch (err) {
      sendTokenError(res, err, this.logger);
    }
  }
}
