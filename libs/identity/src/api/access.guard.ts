import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { ACCESS_RULE, type AccessRule, type Principal } from '@gensvc/http';
import { AppError } from '@gensvc/kernel';
import { RequestContexts } from '@gensvc/event-sourcing';
import { Authenticator } from '../application/authenticate/authenticator';
import { VerifyUploadTokenHandler } from '../application/verify-upload-token/verify-upload-token.handler';
import { CONSOLE_CLIENT_ID } from '../application/console-client';

const REALM = 'gensvc';

/** The route's declared access rule (method first, then controller), or undefined. */
export function accessRuleOf(reflector: Reflector, handler: unknown, controller: unknown): AccessRule | undefined {
  return reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler as never, controller as never]);
}

/**
 * The global guard: enforces the access rule every route declares (libs/shared/src/auth.ts).
 * `@Public()` passes; `@RequireScope(...s)` takes `Authorization: Bearer` with an API key (all
 * scopes) or an OAuth access token that has every scope of `s` (passport, one bearer strategy
 * for both);
 * `@UploadTokenAuth()` takes only the `X-Upload-Token` of the upload named by `:id`. A route
 * without a rule is refused (500): forgetting to declare one never opens a route.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly passport = new passport.Passport();

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: Authenticator,
    private readonly uploadTokens: VerifyUploadTokenHandler,
  ) {
    this.passport.use(
      'bearer',
      new BearerStrategy({ realm: REALM }, (token: string, done: (err: unknown, user?: Principal | false) => void) => {
        this.auth.verifyBearer(token).then((p) => done(null, p ?? false), done);
      }),
    );
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const rule = accessRuleOf(this.reflector, context.getHandler(), context.getClass());
    const req = context.switchToHttp().getRequest<Request & { principal?: Principal }>();
    if (!rule) throw new AppError('INTERNAL', 'this route declares no access rule');
    switch (rule.kind) {
      case 'public':
        return true;
      case 'upload_token': {
        const principal = await this.uploadTokens.execute({ token: req.header('x-upload-token'), upload_id: (req.params as Record<string, string | undefined>)?.id });
        if (!principal) throw new AppError('UNAUTHORIZED', 'a valid X-Upload-Token for this upload is required');
        this.accept(req, principal);
        return true;
      }
      case 'scope': {
        const principal = await this.bearer(req, context.switchToHttp().getResponse<Response>());
        if (!rule.scopes.every((s) => principal.scopes.includes(s))) {
          const needed = rule.scopes.length > 1 ? `the ${rule.scopes.join(' and ')} scopes` : `the ${rule.scopes[0]} scope`;
          throw new AppError('INSUFFICIENT_SCOPE', `this endpoint needs ${needed}`, {
            'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${rule.scopes.join(' ')}"`,
          });
        }
        this.accept(req, principal);
        return true;
      }
      case 'console': {
        const principal = await this.bearer(req, context.switchToHttp().getResponse<Response>());
        if (principal.kind !== 'oauth' || principal.clientId !== CONSOLE_CLIENT_ID) {
          throw new AppError('INSUFFICIENT_SCOPE', 'this endpoint answers only to a sign-in of the web console (not to an API key or another application)');
        }
        if (!principal.scopes.includes(rule.scope)) {
          throw new AppError('INSUFFICIENT_SCOPE', `this endpoint needs the ${rule.scope} scope`, {
            'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${rule.scope}"`,
          });
        }
        this.accept(req, principal);
        return true;
      }
      default: {
        const never: never = rule;
        throw new AppError('INTERNAL', `unknown access rule ${JSON.stringify(never)}`);
      }
    }
  }

  private accept(req: Request & { principal?: Principal }, principal: Principal): void {
    req.principal = principal;
    RequestContexts.setActor(`account:${principal.accountId}`);
  }

  /** Runs the passport bearer strategy on the Authorization header only (never a query or body token). */
  private bearer(req: Request, res: Response): Promise<Principal> {
    const view = { headers: { authorization: req.headers.authorization } };
    return new Promise<Principal>((resolve, reject) => {
      const unauthorized = (challenge?: unknown) =>
        reject(
          new AppError('UNAUTHORIZED', 'a valid API key or access token is required (Authorization: Bearer)', {
            'WWW-Authenticate': typeof challenge === 'string' ? challenge : `Bearer realm="${REALM}"`,
          }),
        );
      const middleware = this.passport.authenticate('bearer', { session: false }, (err: unknown, user: Principal | false, challenge: unknown) => {
        if (err) return reject(err);
        if (!user) return unauthorized(challenge);
        resolve(user);
      });
      try {
        middleware(view, res, (err?: unknown) => (err ? reject(err) : unauthorized()));
      } catch (err) {
        reject(err);
      }
    });
  }
}
