import { Controller, Get, Logger, Post, Req, Res } from '@nestjs/common';
import type { Request, RequestHandler, Response } from 'express';
import oauth2orize from 'oauth2orize';
import { AppConfig } from '@gensvc/config';
import { ReadStore } from '@gensvc/event-sourcing';
import { Clock } from '@gensvc/kernel';
import { OpenApiOperations, Public, SCOPES, SharedCounters } from '@gensvc/http';
import { FindOAuthClientHandler, type OAuthClient } from '../application/find-oauth-client/find-oauth-client.handler';
import { GetAccountHandler } from '../application/get-account/get-account.handler';
import { IssueAuthorizationCodeHandler } from '../application/issue-authorization-code/issue-authorization-code.handler';
import { SignInHandler } from '../application/sign-in/sign-in.handler';
import { OAUTH_AUTHORIZATION_OPENAPI } from './oauth-authorization.openapi';
import { authorizationSessions, csrfToken, csrfValid, type AuthorizeRequest } from './oauth-session';
import { consentPage, errorPage, loginPage } from './oauth.views';
import { runMiddleware } from './run-middleware';
import { SignInThrottle } from './sign-in-throttle';

type OAuthRequest = Request & { oauth2?: { client?: OAuthClient; redirectURI?: string; req?: AuthorizeRequest; transactionID?: string }; user?: unknown };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The authorization endpoint of the OAuth 2.0 authorization server (oauth2orize), mounted at
 * `{PUBLIC_BASE_URL}/authorize`: the authorization code grant with PKCE, through a login page
 * and a consent page (server-rendered, CSRF-protected forms, in a session of their own).
 */
@Controller()
@Public()
@OpenApiOperations(OAUTH_AUTHORIZATION_OPENAPI)
export class OAuthAuthorizationController {
  private readonly logger = new Logger('OAuth');
  private readonly sessions: RequestHandler;
  private readonly issuer: string;
  private readonly authorization: RequestHandler;
  private readonly decision: RequestHandler[];
  private readonly throttle: SignInThrottle;

  constructor(
    config: AppConfig,
    private readonly findClient: FindOAuthClientHandler,
    private readonly getAccount: GetAccountHandler,
    private readonly signIn: SignInHandler,
    private readonly issueCode: IssueAuthorizationCodeHandler,
    readStore: ReadStore,
    private readonly clock: Clock,
    counters: SharedCounters,
  ) {
    this.issuer = config.publicBaseUrl;
    this.sessions = authorizationSessions(config, readStore, clock);
    this.throttle = new SignInThrottle(config, counters);

    const server = oauth2orize.createServer<OAuthClient, { accountId: string }>();
    server.serializeClient((client, done) => done(null, client.clientId));
    server.deserializeClient((id: string, done) => {
      this.clients(id).then((c) => done(null, c ?? false), done);
    });
    // PKCE parameters (RFC 7636) ride along with every authorization request.
    server.grant('*', ((req: Request) => ({
      codeChallenge: typeof req.query.code_challenge === 'string' ? req.query.code_challenge : undefined,
      codeChallengeMethod: typeof req.query.code_challenge_method === 'string' ? req.query.code_challenge_method : undefined,
    })) as never);
    server.grant(
      oauth2orize.grant.code(
        { modes: { query: (txn: { redirectURI: string }, res: Response, params: Record<string, string>) => this.redirect(res, txn.redirectURI, params) } } as never,
        ((client: OAuthClient, redirectURI: string, user: { accountId: string }, _ares: unknown, areq: AuthorizeRequest, done: (err: unknown, code?: string) => void) => {
          this.issueCode
            .execute({
              type: 'IssueAuthorizationCode',
              data: { client_id: client.clientId, account_id: user.accountId, scopes: areq.scope ?? [], redirect_uri: redirectURI, code_challenge: areq.codeChallenge ?? null },
              metadata: { now: this.clock.now() },
            })
            .then((code) => done(null, code), done);
        }) as never,
      ),
    );

    this.authorization = server.authorization(((areq: AuthorizeRequest, done: (err: unknown, client?: OAuthClient, redirectURI?: string) => void) => {
      this.validateAuthorization(areq).then(
        ({ client, redirectUri, error }) => (error ? done(error, client, redirectUri) : done(null, client, redirectUri)),
        (err) => done(err),
      );
    }) as never) as unknown as RequestHandler;
    this.decision = server.decision(((req: Request, done: (err: unknown, ares?: { allow: boolean }) => void) => {
      done(null, { allow: (req.body as Record<string, unknown>).action === 'allow' });
    }) as never) as unknown as RequestHandler[];
  }

  @Get('authorize')
  async authorize(@Req() req: OAuthRequest, @Res() res: Response): Promise<void> {
    this.pageHeaders(res);
    if (await this.refuseResponseType(req, res)) return;
    const sessionErr = await runMiddleware(this.sessions, req, res);
    if (sessionErr) return this.authorizeError(req, res, sessionErr);
    const err = await runMiddleware(this.authorization, req, res);
    if (err) return this.authorizeError(req, res, err);
    if (res.headersSent) return;
    await this.renderStep(req, res, req.oauth2!.transactionID!);
  }

  @Post('authorize')
  async decide(@Req() req: OAuthRequest, @Res() res: Response): Promise<void> {
    this.pageHeaders(res);
    const sessionErr = await runMiddleware(this.sessions, req, res);
    if (sessionErr) return this.authorizeError(req, res, sessionErr);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const tid = typeof body.transaction_id === 'string' ? body.transaction_id : '';
    if (!csrfValid(req, body.csrf_token)) {
      res.status(403).type('html').send(errorPage('The form has expired or did not come from this page.'));
      return;
    }
    const txn = tid ? req.session.authorize?.[tid] : undefined;
    if (!txn) {
      res.status(400).type('html').send(errorPage('This authorization request is unknown or has expired.'));
      return;
    }
    const action = body.action;
    if (action === 'login') {
      const email = String(body.email ?? '');
      const throttled = this.throttle.throttled(req, email);
      if (throttled) {
        const client = await this.clients(txn.client);
        res.setHeader('Retry-After', String(throttled));
        res.status(429).type('html').send(
          loginPage({ clientName: client?.name ?? 'the application', transactionId: tid, csrf: csrfToken(req), error: `Too many failed sign-ins. Try again in ${Math.ceil(throttled / 60)} minutes.`, email }),
        );
        return;
      }
      const accountId = await this.signIn.execute({ email, password: String(body.password ?? '') });
      if (!accountId) {
        this.throttle.failed(req, email);
        const client = await this.clients(txn.client);
        res.status(401).type('html').send(
          loginPage({ clientName: client?.name ?? 'the application', transactionId: tid, csrf: csrfToken(req), error: 'Email or password is wrong.', email: String(body.email ?? ''), redirectUri: txn.redirectURI }),
        );
        return;
      }
      // New session id at login (no fixation); pending authorization requests carry over.
      const pending = req.session.authorize;
      await new Promise<void>((resolve, reject) => req.session.regenerate((e) => (e ? reject(e) : resolve())));
      req.session.authorize = pending;
      req.session.accountId = accountId;
      await this.renderStep(req, res, tid);
      return;
    }
    if (action === 'switch') {
      // "Use another account": forget the signed-in account, keep the pending request.
      const pending = req.session.authorize;
      await new Promise<void>((resolve, reject) => req.session.regenerate((e) => (e ? reject(e) : resolve())));
      req.session.authorize = pending;
      await this.renderStep(req, res, tid);
      return;
    }
    if (action !== 'allow' && action !== 'deny') {
      res.status(400).type('html').send(errorPage('Unknown action.'));
      return;
    }
    const accountId = req.session.accountId;
    if (!accountId || !(await this.getAccount.execute({ account_id: accountId }))) {
      await this.renderStep(req, res, tid);
      return;
    }
    req.user = { accountId };
    const err = await runMiddleware(this.decision, req, res);
    if (err) return this.authorizeError(req, res, err);
  }

  /** An active OAuth client by id, or null. */
  private clients(clientId: unknown): Promise<OAuthClient | null> {
    return this.findClient.execute({ client_id: clientId });
  }

  private async validateAuthorization(areq: AuthorizeRequest): Promise<{ client?: OAuthClient; redirectUri?: string; error?: Error }> {
    const client = await this.clients(areq.clientID);
    if (!client) return { error: new oauth2orize.AuthorizationError('Unknown client_id.', 'unauthorized_client') };
    // Exact match with a registered URI; otherwise an error page, never a redirect.
    if (typeof areq.redirectURI !== 'string' || !client.redirectUris.includes(areq.redirectURI)) {
      return { error: new oauth2orize.AuthorizationError('redirect_uri is missing or is not registered for this client.', 'invalid_request') };
    }
    const redirectUri = areq.redirectURI;
    const fail = (message: string, code: string) => ({ client, redirectUri, error: new oauth2orize.AuthorizationError(message, code) });
    if (areq.state !== undefined && (typeof areq.state !== 'string' || areq.state.length > 500)) return fail('state must be a string of at most 500 characters', 'invalid_request');
    const scopes = [...new Set(areq.scope ?? [])];
    if (!scopes.length) return fail('scope is required: read, create or both', 'invalid_scope');
    if (scopes.some((s) => !(SCOPES as readonly string[]).includes(s))) return fail('scope may only contain read and create', 'invalid_scope');
    areq.scope = SCOPES.filter((s) => scopes.includes(s));
    if (areq.codeChallenge !== undefined || areq.codeChallengeMethod !== undefined) {
      if (areq.codeChallengeMethod !== 'S256') return fail('code_challenge_method must be S256', 'invalid_request');
      if (!areq.codeChallenge || !CHALLENGE.test(areq.codeChallenge)) return fail('code_challenge must be 43 base64url characters', 'invalid_request');
    } else if (client.public) {
      return fail('PKCE is required for public clients: send code_challenge with code_challenge_method=S256', 'invalid_request');
    }
    return { client, redirectUri };
  }

  /**
   * Only `response_type=code` is served. Another (or a missing) response type is answered
   * by a redirect with `unsupported_response_type` (or `invalid_request`) when the client
   * and its redirect URI are valid (RFC 6749 §4.1.2.1); otherwise the error page follows.
   */
  private async refuseResponseType(req: OAuthRequest, res: Response): Promise<boolean> {
    const q = req.query as Record<string, unknown>;
    if (q.response_type === 'code') return false;
    const clientId = q.client_id;
    const redirectUri = q.redirect_uri;
    const client = typeof clientId === 'string' ? await this.clients(clientId) : null;
    if (!client || typeof redirectUri !== 'string' || !client.redirectUris.includes(redirectUri)) return false;
    const missing = q.response_type === undefined || q.response_type === '';
    const params: Record<string, string> = missing
      ? { error: 'invalid_request', error_description: 'response_type is required (only code is supported)' }
      : { error: 'unsupported_response_type', error_description: 'only response_type=code is supported' };
    if (typeof q.state === 'string' && q.state.length <= 500) params.state = q.state;
    this.redirect(res, redirectUri, params);
    return true;
  }

  /** The login form, or the consent form once the session has an account. */
  private async renderStep(req: OAuthRequest, res: Response, tid: string): Promise<void> {
    const txn = req.session.authorize?.[tid];
    const client = txn ? await this.clients(txn.client) : null;
    if (!txn || !client) {
      res.status(400).type('html').send(errorPage('This authorization request is unknown or has expired.'));
      return;
    }
    const account = req.session.accountId ? await this.getAccount.execute({ account_id: req.session.accountId }) : null;
    const csrf = csrfToken(req);
    if (!account) {
      req.session.accountId = undefined;
      res.status(200).type('html').send(loginPage({ clientName: client.name, transactionId: tid, csrf, redirectUri: txn.redirectURI }));
      return;
    }
    res.status(200).type('html').send(consentPage({ clientName: client.name, accountName: account.email ?? account.name, scopes: txn.req.scope ?? [], transactionId: tid, csrf, redirectUri: txn.redirectURI }));
  }

  private authorizeError(req: OAuthRequest, res: Response, err: unknown): void {
    if (res.headersSent) return;
    const e = err as { code?: string; message?: string; status?: number };
    const known = err instanceof oauth2orize.AuthorizationError;
    const client = req.oauth2?.client;
    const redirectURI = req.oauth2?.redirectURI;
    // A redirect only to a URI registered for a known client.
    if (known && client && redirectURI && client.redirectUris.includes(redirectURI)) {
      const params: Record<string, string> = { error: e.code ?? 'invalid_request', error_description: e.message ?? 'invalid request' };
      const state = req.oauth2?.req?.state;
      if (state) params.state = state;
      this.redirect(res, redirectURI, params);
      return;
    }
    if (!known && !(err instanceof oauth2orize.OAuth2Error)) this.logger.error(`authorization request failed: ${(err as Error)?.message}`, (err as Error)?.stack);
    const status = known || err instanceof oauth2orize.OAuth2Error ? (e.status && e.status < 500 ? e.status : 400) : 500;
    res.status(status).type('html').send(errorPage(status === 500 ? 'Something went wrong on our side.' : (e.message ?? 'Invalid authorization request.')));
  }

  private redirect(res: Response, redirectURI: string, params: Record<string, string>): void {
    const url = new URL(redirectURI);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    url.searchParams.set('iss', this.issuer);
    res.redirect(302, url.toString());
  }

  private pageHeaders(res: Response): void {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  }
}
