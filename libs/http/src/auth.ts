import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The access contract every route declares (the identity context enforces it with a
 * global guard; a route without a declaration fails the route-table test):
 * - `@Public()`: no credential (catalogue, OAuth pages, signed links);
 * - `@RequireScope('read' | 'create', ...)`: account API key (both scopes) or OAuth token with
 *   every scope named (`@RequireScope('read', 'create')`: a route whose answers or effects
 *   carry account data, so a create-only grant cannot use it to read);
 * - `@UploadTokenAuth()`: only the `X-Upload-Token` of that upload;
 * - `@ConsoleOnly('read' | 'create')`: only an OAuth token of the service's own web console
 *   with the scope (never an API key or another client's token: account key management).
 */
export type Scope = 'read' | 'create';
export const SCOPES: readonly Scope[] = ['read', 'create'];

export type AccessRule = { kind: 'public' } | { kind: 'scope'; scopes: readonly Scope[] } | { kind: 'upload_token' } | { kind: 'console'; scope: Scope };
export const ACCESS_RULE = 'gensvc:access';

export const Public = () => SetMetadata(ACCESS_RULE, { kind: 'public' } satisfies AccessRule);
export const RequireScope = (...scopes: [Scope, ...Scope[]]) => SetMetadata(ACCESS_RULE, { kind: 'scope', scopes: SCOPES.filter((s) => scopes.includes(s)) } satisfies AccessRule);
export const UploadTokenAuth = () => SetMetadata(ACCESS_RULE, { kind: 'upload_token' } satisfies AccessRule);
export const ConsoleOnly = (scope: Scope) => SetMetadata(ACCESS_RULE, { kind: 'console', scope } satisfies AccessRule);

/** Who calls. `connectionId` is the API key id or the OAuth grant id (the task list's connection_id). */
export interface Principal {
  readonly accountId: string;
  readonly kind: 'api_key' | 'oauth' | 'upload_token';
  readonly connectionId: string;
  readonly scopes: readonly Scope[];
  /** For OAuth tokens: the client the grant belongs to. */
  readonly clientId?: string;
  /** For upload tokens: the one upload it may write. */
  readonly uploadId?: string;
}

/** The authenticated principal, set on the request by the identity guard. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!req.principal) throw new Error('route has no authenticated principal');
  return req.principal;
});
