import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerGuard, getOptionsToken, getStorageToken, type ThrottlerModuleOptions, type ThrottlerRequest, type ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { AppConfig } from '@gensvc/config';
import { AppError } from '@gensvc/kernel';
import { SharedCounters } from '@gensvc/http';
import { Authenticator } from '@gensvc/identity';

const MINUTE = 60_000;

/** Whom a request is counted for: its valid credential, or else its client address. */
type Subject = { kind: 'credential'; id: string } | { kind: 'address'; id: string };
type LimitedRequest = Request & { rateLimitSubject?: Subject; rateLimitStates?: PolicyState[] };
interface PolicyState {
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

const subjectOf = (req: Request): Subject | undefined => (req as LimitedRequest).rateLimitSubject;
const isTaskCreation = (req: Request): boolean => req.method === 'POST' && /^\/v1\/tasks\/?$/.test(req.path);

/**
 * The throttlers of CONTRACT §13, in the order they are checked: per credential (every
 * authenticated request), task creations per credential, per client address (requests
 * without a valid credential). Fixed windows of one minute: a burst of a whole minute's
 * allowance is allowed.
 */
export function throttlerOptions(config: AppConfig, storage: ThrottlerStorage): ThrottlerModuleOptions {
  const r = config.rateLimits;
  const tracker = (req: Record<string, unknown>) => subjectOf(req as unknown as Request)!.id;
  const http = (ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>();
  return {
    storage,
    generateKey: (_ctx, tracker, name) => `${name}:${tracker}`,
    throttlers: [
      { name: 'credential', ttl: MINUTE, limit: r.perCredential, getTracker: tracker, skipIf: (ctx) => subjectOf(http(ctx))?.kind !== 'credential' },
      { name: 'tasks', ttl: MINUTE, limit: r.taskCreations, getTracker: tracker, skipIf: (ctx) => subjectOf(http(ctx))?.kind !== 'credential' || !isTaskCreation(http(ctx)) },
      { name: 'address', ttl: MINUTE, limit: r.perAddress, getTracker: tracker, skipIf: (ctx) => subjectOf(http(ctx))?.kind !== 'address' },
    ],
  };
}

/** @nestjs/throttler's storage over the shared counters (every process sees every hit). */
export class SharedCountersThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly counters: SharedCounters) {}

  async increment(key: string, ttl: number, limit: number): Promise<{ totalHits: number; timeToExpire: number; isBlocked: boolean; timeToBlockExpire: number }> {
    const s = this.counters.hit(`rate:${key}`, ttl);
    const seconds = Math.max(1, Math.ceil(s.resetInMs / 1000));
    const isBlocked = s.count > limit;
    return { totalHits: s.count, timeToExpire: seconds, isBlocked, timeToBlockExpire: isBlocked ? seconds : 0 };
  }
}

/**
 * The global rate-limit guard (@nestjs/throttler). It runs before the access guard and
 * decides whom to count by checking the bearer credential itself (a valid API key or OAuth
 * token: its connection; anything else, including a wrong credential: the client address).
 * Every answer carries `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers);
 * a refusal is 429 RATE_LIMITED with `Retry-After` in whole seconds.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @Inject(getOptionsToken()) options: ThrottlerModuleOptions,
    @Inject(getStorageToken()) storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly config: AppConfig,
    private readonly auth: Authenticator,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.config.rateLimits.enabled || context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<LimitedRequest>();
    req.rateLimitSubject ??= await this.subject(req);
    req.rateLimitStates = [];
    return super.canActivate(context);
  }

  private async subject(req: Request): Promise<Subject> {
    const m = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(req.headers.authorization ?? '');
    const principal = m ? await this.auth.verifyBearer(m[1]) : null;
    if (principal) return { kind: 'credential', id: principal.connectionId };
    return { kind: 'address', id: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, getTracker, generateKey } = props;
    const req = context.switchToHttp().getRequest<LimitedRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const name = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req as never, context), name);
    const hit = await this.storageService.increment(key, ttl, limit, 0, name);
    const states = (req.rateLimitStates ??= []);
    states.push({ name, limit, windowSeconds: Math.round(ttl / 1000), remaining: Math.max(0, limit - hit.totalHits), resetSeconds: hit.timeToExpire });
    res.setHeader('RateLimit-Policy', states.map((s) => `"${s.name}";q=${s.limit};w=${s.windowSeconds}`).join(', '));
    res.setHeader('RateLimit', states.map((s) => `"${s.name}";r=${s.remaining};t=${s.resetSeconds}`).join(', '));
    if (hit.isBlocked) {
      const what = name === 'tasks' ? 'task creations' : name === 'address' ? 'requests from this address' : 'requests with this credential';
      throw new AppError('RATE_LIMITED', `rate limit reached: at most ${limit} ${what} per ${Math.round(ttl / 1000)} seconds; retry in ${hit.timeToExpire} s`, {
        'Retry-After': String(hit.timeToExpire),
      });
    }
    return true;
  }
}
