import { Controller, Get, Logger, Optional, Post, Req, Res } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import oauth2orize from 'oauth2orize';
import { AppConfig } from '@gensvc/config';
import { Clock } from '@gensvc/kernel';
import { OpenApiOperations, Public, SCOPES, SharedCounters } from '@gensvc/http';
import { ReadStore } from '@gensvc/event-sourcing';
import { ExchangeAuthorizationCodeHandler } from '../application/exchange-authorization-code/exchange-authorization-code.handler';
import { clientAuthenticates, FindOAuthClientHandler, type OAuthClient } from '../application/find-oauth-client/find-oauth-client.handler';
import { GetAccountHandler } from '../application/get-account/get-account.handler';
import { IssueAuthorizationCodeHandler } from '../application/issue-authorization-code/issue-authorization-code.handler';
import { RefreshTokensHandler } from '../application/refresh-tokens/refresh-tokens.handler';
import { RevokeTokenHandler } from '../application/revoke-token/revoke-token.handler';
import { SignInHandler } from '../application/sign-in/sign-in.handler';
import { OAuthGrantError } from '../domain/oauth-grant';
import { ReadStoreSessionStore } from '../infrastructure/read-store-session.store';
import { consentPage, errorPage, loginPage } from './oauth.views';
import { OAUTH_OPENAPI } from './oauth.openapi';

declare module 'express-session' {
  interface SessionData {
    accountId?: string;
    csrf?: string;
    authorize?: Record<string, { client: string; redirectURI: string; req: AuthorizeRequest }>;
  }
}

interface AuthorizeRequest {
  type: string;
  clientID: string;
  redirectURI: string;
  scope?: string[];
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

type OAuthRequest = Request & { oauth2?: { client?: OAuthClient; redirectURI?: string; req?: AuthorizeRequest; transactionID?: string }; user?: unknown };

/** An error of the token or revocation endpoint (RFC 6749 §5.2). */
class TokenEndpointError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const SIGN_IN_WINDOW_MS = 15 * 60_000;

/** Runs connect-style middleware; resolves with its error, or when it calls next() or answers. */
function run(mw: RequestHandler | RequestHandler[], req: Request, res: Response): Promise<unknown> {
  const chain = Array.isArray(mw) ? mw : [mw];
  return chain.reduce<Promise<unknown>>(
    (prev, handler) =>
      prev.then((err) => {
        if (err || res.headersSent) return err;
        return new Promise<unknown>((resolve) => {
          const done = () => resolve(undefined);
          res.once('finish', done);
          res.once('close', done);
          handler(req, res, ((e?: unknown) => {
            res.off('finish', done);
            res.off('close', done);
            resolve(e ?? undefined);
          }) as NextFunction);
        });
      }),
    Promise.resolve(undefined),
  );
}

/**
 * OAuth 2.0 authorization server (oauth2orize): authorization code grant with PKCE,
 * refresh token rotation, RFC 7009 revocation and RFC 8414 metadata. Mounted at the root:
 * `{PUBLIC_BASE_URL}/authorize`, `/token`, `/revoke`.
 */
@Controller()
@Public()
@OpenApiOperations(OAUTH_OPENAPI)
export class OAuthController {
  private readonly logger = new Logger('OAuth');
  private readonly server = oauth2orize.createServer<OAuthClient, { accountId: string }>();
  private readonly sessions: RequestHandler;
  private readonly issuer: string;
  private readonly authorization: RequestHandler;
  private readonly decision: RequestHandler[];
  private readonly tokenMiddleware: RequestHandler;

  constructor(
    private readonly config: AppConfig,
    private readonly findClient: FindOAuthClientHandler,
    private readonly getAccount: GetAccountHandler,
    private readonly signIn: SignInHandler,
    private readonly issueCode: IssueAuthorizationCodeHandler,
    private readonly exchangeCode: ExchangeAuthorizationCodeHandler,
    private readonly refreshTokens: RefreshTokensHandler,
    private readonly revokeToken: RevokeTokenHandler,
    readStore: ReadStore,
    private readonly clock: Clock,
    @Optional() private readonly counters?: SharedCounters,
  ) {
    this.issuer = config.publicBaseUrl;
    const base = new URL(config.publicBaseUrl);
    const secure = base.protocol === 'https:';
    this.sessions = session({
      name: 'gensvc_oauth',
      secret: createHmac('sha256', config.signingSecret).update('gensvc oauth session cookie').digest('base64url'),
      store: new ReadStoreSessionStore(readStore, clock),
      resave: false,
      saveUninitialized: false,
      proxy: secure ? true : undefined,
      cookie: { httpOnly: true, sameSite: 'lax', secure, path: `${base.pathname.replace(/\/+$/, '')}/authorize`, maxAge: 3600_000 },
    }) as unknown as RequestHandler;

    const server = this.server;
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
              metadata: this.commandMetadata(),
            })
            .then((code) => done(null, code), done);
        }) as never,
      ),
    );
    server.exchange(
      oauth2orize.exchange.authorizationCode(((client: OAuthClient, code: string, redirectURI: string, body: Record<string, unknown>, done: (...a: unknown[]) => void) => {
        this.exchangeCode
          .execute({ type: 'ExchangeAuthorizationCode', data: { client_id: client.clientId, code, redirect_uri: redirectURI, code_verifier: body.code_verifier }, metadata: this.commandMetadata() })
          .then((t) => done(null, t.access_token, t.refresh_token, { expires_in: t.expires_in, scope: t.scope }), done);
      }) as never),
    );
    server.exchange(
      oauth2orize.exchange.refreshToken(((client: OAuthClient, refreshToken: string, _scope: unknown, body: Record<string, unknown>, done: (...a: unknown[]) => void) => {
        this.refreshTokens
          .execute({ type: 'RefreshTokens', data: { client_id: client.clientId, refresh_token: refreshToken, scope: body.scope }, metadata: this.commandMetadata() })
          .then((t) => done(null, t.access_token, t.refresh_token, { expires_in: t.expires_in, scope: t.scope }), done);
      }) as never),
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
    this.tokenMiddleware = server.token() as unknown as RequestHandler;
  }

  /** RFC 8414 metadata, so standard clients configure themselves. */
  @Get('.well-known/oauth-authorization-server')
  metadata() {
    const base = this.issuer;
    return {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      revocation_endpoint: `${base}/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...SCOPES],
      authorization_response_iss_parameter_supported: true,
    };
  }

  @Get('authorize')
  async authorize(@Req() req: OAuthRequest, @Res() res: Response): Promise<void> {
    this.pageHeaders(res);
    if (await this.refuseResponseType(req, res)) return;
    const sessionErr = await run(this.sessions, req, res);
    if (sessionErr) return this.authorizeError(req, res, sessionErr);
    const err = await run(this.authorization, req, res);
    if (err) return this.authorizeError(req, res, err);
    if (res.headersSent) return;
    await this.renderStep(req, res, req.oauth2!.transactionID!);
  }

  @Post('authorize')
  async decide(@Req() req: OAuthRequest, @Res() res: Response): Promise<void> {
    this.pageHeaders(res);
    const sessionErr = await run(this.sessions, req, res);
    if (sessionErr) return this.authorizeError(req, res, sessionErr);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const tid = typeof body.transaction_id === 'string' ? body.transaction_id : '';
    if (!this.csrfValid(req, body.csrf_token)) {
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
      const throttled = this.signInThrottled(req, email);
      if (throttled) {
        const client = await this.clients(txn.client);
        res.setHeader('Retry-After', String(throttled));
        res.status(429).type('html').send(
          loginPage({ clientName: client?.name ?? 'the application', transactionId: tid, csrf: this.csrf(req), error: `Too many failed sign-ins. Try again in ${Math.ceil(throttled / 60)} minutes.`, email }),
        );
        return;
      }
      const accountId = await this.signIn.execute({ email, password: String(body.password ?? '') });
      if (!accountId) {
        this.signInFailed(req, email);
        const client = await this.clients(txn.client);
        res.status(401).type('html').send(
          loginPage({ clientName: client?.name ?? 'the application', transactionId: tid, csrf: this.csrf(req), error: 'Email or password is wrong.', email: String(body.email ?? ''), redirectUri: txn.redirectURI }),
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
    const err = await run(this.decision, req, res);
    if (err) return this.authorizeError(req, res, err);
  }

  @Post('token')
  async token(@Req() req: OAuthRequest, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!body.grant_type) throw new TokenEndpointError('invalid_request', 'grant_type is required');
      if (typeof body.grant_type !== 'string') throw new TokenEndpointError('invalid_request', 'grant_type must be a string');
      req.user = await this.authenticateClient(req);
      res.status(200);
      const err = await run(this.tokenMiddleware, req, res);
      if (err) this.tokenError(res, err);
    } catch (err) {
      this.tokenError(res, err);
    }
  }

  /** RFC 7009: 200 for any token of the authenticated client, known or not. */
  @Post('revoke')
  async revoke(@Req() req: OAuthRequest, @Res() res: Response): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const client = await this.authenticateClient(req);
      const token = (req.body as Record<string, unknown> | undefined)?.token;
      if (typeof token !== 'string' || !token) throw new TokenEndpointError('invalid_request', 'token is required');
      await this.revokeToken.execute({ type: 'RevokeToken', data: { client_id: client.clientId, token }, metadata: this.commandMetadata() });
      res.status(200).json({});
    } catch (err) {
      this.tokenError(res, err);
    }
  }

  // ---- authorization endpoint helpers ----

  /** An active OAuth client by id, or null. */
  private clients(clientId: unknown): Promise<OAuthClient | null> {
    return this.findClient.execute({ client_id: clientId });
  }

  private commandMetadata(): { now: Date } {
    return { now: this.clock.now() };
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

  /**
   * Failed sign-ins are counted per account (the email as typed, lower-cased) and per client
   * address in 15-minute windows shared by every process; past SIGNIN_FAILURES_PER_ACCOUNT
   * or SIGNIN_FAILURES_PER_ADDRESS further attempts are refused (429, the password is not
   * even checked) until the window ends. Returns the seconds to wait, or 0.
   */
  private signInThrottled(req: Request, email: string): number {
    if (!this.counters) return 0;
    const { signInFailuresPerAccount: perAccount, signInFailuresPerAddress: perAddress } = this.config.rateLimits;
    const account = this.counters.peek(`signin:account:${email.trim().toLowerCase()}`, SIGN_IN_WINDOW_MS);
    const address = this.counters.peek(`signin:address:${req.ip ?? req.socket.remoteAddress}`, SIGN_IN_WINDOW_MS);
    const waits = [account.count >= perAccount ? account.resetInMs : 0, address.count >= perAddress ? address.resetInMs : 0];
    const wait = Math.max(...waits);
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : 0;
  }

  private signInFailed(req: Request, email: string): void {
    this.counters?.hit(`signin:account:${email.trim().toLowerCase()}`, SIGN_IN_WINDOW_MS);
    this.counters?.hit(`signin:address:${req.ip ?? req.socket.remoteAddress}`, SIGN_IN_WINDOW_MS);
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
    const csrf = this.csrf(req);
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

  private csrf(req: OAuthRequest): string {
    req.session.csrf ??= randomBytes(32).toString('base64url');
    return req.session.csrf;
  }

  private csrfValid(req: OAuthRequest, given: unknown): boolean {
    const expected = req.session?.csrf;
    if (!expected || typeof given !== 'string') return false;
    const a = Buffer.from(expected);
    const b = Buffer.from(given);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  // ---- token endpoint helpers ----

  /** client_secret_basic, client_secret_post, or none (public clients, with client_id in the body). */
  private async authenticateClient(req: Request): Promise<OAuthClient> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const header = req.headers.authorization;
    let clientId: unknown = body.client_id;
    let secret: string | undefined;
    let basic = false;
    if (typeof header === 'string' && /^basic /i.test(header)) {
      basic = true;
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      if (i < 0) throw this.invalidClient(true);
      const formDecode = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return s;
        }
      };
      const id = formDecode(decoded.slice(0, i));
      if (body.client_secret !== undefined) throw new TokenEndpointError('invalid_request', 'use one client authentication method, not two');
      if (clientId !== undefined && clientId !== id) throw new TokenEndpointError('invalid_request', 'client_id does not match the Authorization header');
      clientId = id;
      secret = formDecode(decoded.slice(i + 1));
    } else if (header !== undefined) {
      throw this.invalidClient(false);
    } else if (body.client_secret !== undefined) {
      if (typeof body.client_secret !== 'string') throw new TokenEndpointError('invalid_request', 'client_secret must be a string');
      secret = body.client_secret;
    }
    if (typeof clientId !== 'string' || !clientId) throw this.invalidClient(basic);
    const client = await this.clients(clientId);
    if (!client || !clientAuthenticates(client, secret)) throw this.invalidClient(basic);
    return client;
  }

  private invalidClient(basic: boolean): TokenEndpointError {
    return new TokenEndpointError('invalid_client', 'client authentication failed', 401, basic ? { 'WWW-Authenticate': 'Basic realm="gensvc"' } : {});
  }

  private tokenError(res: Response, err: unknown): void {
    if (res.headersSent) return;
    let error = 'server_error';
    let message = 'internal error';
    let status = 500;
    let headers: Record<string, string> = {};
    if (err instanceof TokenEndpointError) {
      ({ error, message, status, headers } = err);
    } else if (err instanceof OAuthGrantError) {
      error = err.error;
      message = err.message;
      status = 400;
    } else if (err instanceof oauth2orize.OAuth2Error) {
      const e = err as unknown as { code: string; message: string };
      error = e.code === 'server_error' ? 'server_error' : e.code;
      message = e.message;
      status = error === 'invalid_client' ? 401 : error === 'server_error' ? 500 : 400;
    } else {
      this.logger.error(`token request failed: ${(err as Error)?.message}`, (err as Error)?.stack);
    }
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json({ error, error_description: message });
  }
}
