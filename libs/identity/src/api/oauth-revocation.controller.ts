import { Controller, Logger, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Clock } from '@gensvc/kernel';
import { OpenApiOperations, Public } from '@gensvc/http';
import { FindOAuthClientHandler } from '../application/find-oauth-client/find-oauth-client.handler';
import { RevokeTokenHandler } from '../application/revoke-token/revoke-token.handler';
import { authenticateClient } from './oauth-client-authentication';
import { OAUTH_REVOCATION_OPENAPI } from './oauth-revocation.openapi';
import { sendTokenError, TokenEndpointError } from './token-endpoint-error';

/** RFC 7009 token revocation, mounted at `{PUBLIC_BASE_URL}/revoke`. */
@Controller()
@Public()
@OpenApiOperations(OAUTH_REVOCATION_OPENAPI)
export class OAuthRevocationController {
  private readonly logger = new Logger('OAuth');

  constructor(
    private readonly findClient: FindOAuthClientHandler,
    private readonly revokeToken: RevokeTokenHandler,
    private readonly clock: Clock,
  ) {}

  /** 200 for any token of the authenticated client, known or not. */
  @Post('revoke')
  async revoke(@Req() req: Request, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const client = await authenticateClient(req, this.findClient);
      const token = (req.body as Record<string, unknown> | undefined)?.token;
      if (typeof token !== 'string' || !token) throw new TokenEndpointError('invalid_request', 'token is required');
      await this.revokeToken.execute({ type: 'RevokeToken', data: { client_id: client.clientId, token }, metadata: { now: this.clock.now() } });
      res.status(200).json({});
    } catch (err) {
      sendTokenError(res, err, this.logger);
    }
  }
}
