/**
 * Failover between a model's provider routes (CONTRACT §14), as pure functions over what the
 * job's stream recorded: each route's attempts, the time of its first attempt, when it may be
 * tried again and whether it is spent. Because the record is the job's events, a restart or a
 * hand-over to another worker continues where the job stood instead of from the first route.
 *
 * A route is spent after 3 attempts it did not take, after 30 seconds on it, when it asks to
 * wait longer than that (`Retry-After`), or at once when it cannot run the job at all (the
 * provider does not know the model, its input mapping fails, the voice belongs to another
 * channel). Between attempts it backs off exponentially (1 s, 2 s, ...) with a jitter of
 * ±25 % drawn from the task id, or waits as long as its `Retry-After` said.
 */

export const ROUTE_ATTEMPTS = 3;
export const ROUTE_WINDOW_MS = 30_000;
/** Longest wait between two create requests sent again after lost answers (with the provider's idempotency key). */
const RESEND_MAX_MS = 30_000;

/** What the job's stream says of one route (see `routeKey`). */
export interface RouteTries {
  /** Create requests the route did not take (and routes skipped: 1). */
  readonly attempts: number;
  /** When the first attempt on the route went out. */
  readonly since: string;
  /** Not to be tried again before this time. */
  readonly retryAt: string | null;
  /** Not to be tried again at all: the next route is. */
  readonly spent: boolean;
}

/** A route of a job as its events name it: the channel and the index of the route in the model's `routes`. */
export const routeKey = (channel: string, route: number): string => `${channel}#${route}`;

/**
 * How a route that did not take the job stands after this attempt: when to try it again and
 * whether it is spent. `retryAfterMs` is the provider's `Retry-After`; `unusable`: the route
 * cannot run the job at all.
 */
export function afterAttempt(
  taskId: string,
  previous: RouteTries | undefined,
  attemptAt: string,
  now: Date,
  answer: { readonly retryAfterMs?: number; readonly unusable?: boolean },
): { readonly retryAt: string | null; readonly spent: boolean } {
  const attempts = (previous?.attempts ?? 0) + 1;
  const since = Date.parse(previous?.since ?? attemptAt);
  const wait = answer.retryAfterMs ?? backoffMs(taskId, attempts);
  const retryAt = now.getTime() + wait;
  const spent = answer.unusable === true || attempts >= ROUTE_ATTEMPTS || (answer.retryAfterMs ?? 0) > ROUTE_WINDOW_MS || retryAt - since > ROUTE_WINDOW_MS;
  return { retryAt: spent ? null : new Date(retryAt).toISOString(), spent };
}

/** Exponential backoff from 1 s with a ±25 % jitter that differs between tasks (and stays the same on a replay). */
export function backoffMs(taskId: string, attempt: number): number {
  let h = 2166136261;
  for (const ch of `${taskId}:${attempt}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return Math.round(1000 * 2 ** (attempt - 1) * (0.75 + (h % 1000) / 2000));
}

/** A route a job may run on now, as the channel sees it. */
export interface RouteOption {
  readonly channel: string;
  readonly route: number;
  /** Whether the provider takes a create request sent again (an idempotency key) after its answer was lost. */
  readonly resendsLostAnswers: boolean;
}

/** The parts of a queued job the plan reads. */
export interface QueuedRoutes {
  /** A create request that went out and whose answer never arrived (`since`: when it went out first). */
  readonly submitting: { readonly channel: string; readonly route: number; readonly since: string } | null;
  readonly routes: Readonly<Record<string, RouteTries>>;
}

export type SubmitPlan =
  /** Send the create request to this route (`resend`: again, with the same idempotency key). */
  | { readonly kind: 'submit'; readonly option: RouteOption; readonly resend: boolean }
  /** The route to try next may be tried again at `untilMs`. */
  | { readonly kind: 'wait'; readonly untilMs: number }
  /** The answer to a create request was lost and cannot be asked for again: the job may exist at the provider. */
  | { readonly kind: 'lost'; readonly channel: string }
  /** Every route is spent. */
  | { readonly kind: 'exhausted' };

/**
 * What to do next with a queued job, given its routes in the order to try them (`options`:
 * those whose last probe passed first) at `nowMs`.
 */
export function planSubmit(job: QueuedRoutes, options: readonly RouteOption[], nowMs: number): SubmitPlan {
  const held = job.submitting;
  if (held) {
    const option = options.find((o) => o.channel === held.channel && o.route === held.route);
    return option?.resendsLostAnswers ? { kind: 'submit', option, resend: true } : { kind: 'lost', channel: held.channel };
  }
  for (const option of options) {
    const tries = job.routes[routeKey(option.channel, option.route)];
    if (tries?.spent) continue;
    const retryAt = tries?.retryAt ? Date.parse(tries.retryAt) : -Infinity;
    return nowMs < retryAt ? { kind: 'wait', untilMs: retryAt } : { kind: 'submit', option, resend: false };
  }
  return { kind: 'exhausted' };
}

/**
 * How long to wait before a create request whose answer was lost is sent again (with the
 * provider's idempotency key): as long as the request has been out, from 1 s up to 30 s.
 */
export function resendDelayMs(submitting: { readonly since: string }, nowMs: number): number {
  return Math.min(Math.max(nowMs - Date.parse(submitting.since), 1_000), RESEND_MAX_MS);
}
