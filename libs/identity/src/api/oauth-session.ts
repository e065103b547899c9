import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '@gensvc/config';
import type { ReadStore } from '@gensvc/event-sourcing';
import type { Clock } from '@gensvc/kernel';
import { ReadStoreSessionStore } from '../infrastructure/read-store-session.store';

declare module 'express-session' {
  interface SessionData {
    accountId?: string;
    csrf?: string;
    authorize?: Record<string, { client: string; redirectURI: string; req: AuthorizeRequest }>;
  }
}

/** An authorization request as oauth2orize parses it, with the PKCE parameters (RFC 7636). */
export interface AuthorizeRequest {
  type: string;
  clientID: string;
  redirectURI: string;
  scope?: string[];
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/**
 * The session of the authorization endpoint (the signed-in account, the pending authorization
 * requests, the CSRF token of its forms): a cookie for `{PUBLIC_BASE_URL}/authorize` only,
 * the data in the read store, so every process of the service serves it.
 */
export function authorizationSessions(config: AppConfig, readStore: ReadStore, clock: Clock): RequestHandler {
  const base = new URL(config.publicBaseUrl);
  const secure = base.protocol === 'https:';
  return session({
    name: 'gensvc_oauth',
    secret: createHmac('sha256', config.signingSecret).update('gensvc oauth session cookie').digest('base64url'),
    store: new ReadStoreSessionStore(readStore, clock),
    resave: false,
    saveUninitialized: false,
    proxy: secure ? true : undefined,
    cookie: { httpOnly: true, sameSite: 'lax', secure, path: `${base.pathname.replace(/\/+$/, '')}/authorize`, maxAge: 3600_000 },
  }) as unknown as RequestHandler;
}

/** The CSRF token of the session's forms (made on first use). */
export function csrfToken(req: Request): string {
  req.session.csrf ??= randomBytes(32).toString('base64url');
  return req.session.csrf;
}

/** Whether a form's CSRF token is the session's. */
export function csrfValid(req: Request, given: unknown): boolean {
  const expected = req.session?.csrf;
  if (!expected || typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
