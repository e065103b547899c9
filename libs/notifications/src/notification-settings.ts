import { AppConfig, ConfigError, envInt } from '@gensvc/config';

type Env = Record<string, string | undefined>;

/** Seconds between attempts when WEBHOOK_RETRY_SCHEDULE is unset (CONTRACT §10). */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

/**
 * Settings of the notifications context, read from the environment at start (README's
 * configuration table) and validated there. Mutable on purpose: e2e tests running the app
 * in-process shorten the schedule or allow loopback receivers through `app.get(NotificationSettings)`.
 */
export class NotificationSettings {
  /** Seconds to wait after each failed attempt; one more attempt than entries (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: number[];
  /** Each wait is varied by up to this fraction either way (10 %). */
  jitter: number;
  /** WEBHOOKS_ALLOW_LOCAL=1: http:// and loopback receivers too (development and tests). */
  allowLocal: boolean;
  /** Ports public webhook addresses may use besides 443 (WEBHOOK_ALLOWED_PORTS; none by default). */
  allowedPorts: number[];
  /** Time limit of one attempt, connection to last header (15 s). */
  attemptTimeoutMs: number;
  /** An endpoint whose every attempt failed for this long is disabled (5 days). */
  disableAfterMs: number;
  /** Attempts in flight at once, in this process (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Attempts in flight at once to one endpoint, in this process (WEBHOOK_CONCURRENCY_PER_ENDPOINT). */
  concurrencyPerEndpoint: number;
  /** Most bytes of a receiver's answer read (the rest is discarded). */
  responseReadBytes: number;
  /** Key material the endpoint secrets are encrypted with (WEBHOOK_SECRET_KEY, else SIGNING_SECRET). */
  secretKey: string;

  constructor(values: Omit<NotificationSettings, never>) {
    this.retrySchedule = values.retrySchedule;
    this.jitter = values.jitter;
    this.allowLocal = values.allowLocal;
    this.allowedPorts = values.allowedPorts;
    this.attemptTimeoutMs = values.attemptTimeoutMs;
    this.disableAfterMs = values.disableAfterMs;
    this.concurrency = values.concurrency;
    this.concurrencyPerEndpoint = values.concurrencyPerEndpoint;
    this.responseReadBytes = values.responseReadBytes;
    this.secretKey = values.secretKey;
  }
}

/** `5,300,1800`: non-negative seconds (decimals allowed), at most 20 entries, each at most a week. */
export function parseRetrySchedule(raw: string | undefined, variable = 'WEBHOOK_RETRY_SCHEDULE'): number[] {
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20) throw new ConfigError(variable, 'must list at most 20 waits');
  return parts.map((p) => {
    if (!/^\d+(\.\d{1,3})?$/.test(p)) throw new ConfigError(variable, `must be comma-separated seconds, got ${JSON.stringify(p)}`);
    const n = Number(p);
    if (n > 7 * 86_400) throw new ConfigError(variable, 'waits must be at most 604800 seconds');
    return n;
  });
}

/** `8443,9443`: TCP ports (1 to 65535), at most 32; empty or unset: none besides 443. */
export function parseAllowedPorts(raw: string | undefined, variable = 'WEBHOOK_ALLOWED_PORTS'): number[] {
  if (raw === undefined || raw.trim() === '') return [];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 32) throw new ConfigError(variable, 'must list at most 32 ports');
  return [
    ...new Set(
      parts.map((p) => {
        if (!/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65_535) throw new ConfigError(variable, `must be comma-separated TCP ports (1 to 65535), got ${JSON.stringify(p)}`);
        return Number(p);
      }),
    ),
  ];
}

export function loadNotificationSettings(config: AppConfig, env: Env = process.env): NotificationSettings {
  const allow = env.WEBHOOKS_ALLOW_LOCAL ?? '';
  if (!['', '0', '1', 'true', 'false'].includes(allow)) throw new ConfigError('WEBHOOKS_ALLOW_LOCAL', 'must be 1 or 0');
  const key = env.WEBHOOK_SECRET_KEY;
  if (key !== undefined && key !== '' && key.length < 32) throw new ConfigError('WEBHOOK_SECRET_KEY', 'must be at least 32 characters');
  return new NotificationSettings({
    retrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    jitter: 0.1,
    allowLocal: allow === '1' || allow === 'true',
    allowedPorts: parseAllowedPorts(env.WEBHOOK_ALLOWED_PORTS),
    attemptTimeoutMs: 15_000,
    disableAfterMs: 5 * 86_400_000,
    concurrency: envInt(env, 'WEBHOOK_CONCURRENCY', 32, 1, 1024),
    concurrencyPerEndpoint: envInt(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 64),
    responseReadBytes: 4096,
    secretKey: key || config.signingSecret,
  });
}
