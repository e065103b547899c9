import { readFileSync } from 'node:fs';
import { AppConfig, ConfigError, envInt } from '@gensvc/shared';

/** One external supplier reached over HTTP (see libs/suppliers/PROTOCOL.md). */
export interface HttpChannelConfig {
  /** Channel name, as catalogue models name it in `supplier`. */
  readonly name: string;
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …` on every request to the supplier. */
  readonly apiKey?: string;
  /** HMAC-SHA256 key the supplier signs callbacks with. */
  readonly callbackSecret: string;
  /** Time limit of one HTTP request to the supplier. */
  readonly requestTimeoutMs: number;
  /** First status poll this long after the supplier took the job, when no callback came. */
  readonly pollAfterMs: number;
  /** Then a poll every this long while no callback arrives. */
  readonly pollIntervalMs: number;
  /** Deadline of a job on this channel (overrides SUPPLIER_JOB_DEADLINE_MS). */
  readonly deadlineMs?: number;
  /** A cancellation the supplier neither confirms nor refuses within this time is `unconfirmed`. */
  readonly cancelTimeoutMs: number;
  /** Retry backoff after a 5xx, 408, 429, network error or timeout: base · 2^n, capped. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/**
 * Settings of the suppliers context, read from the environment at start (README's
 * configuration table). Mutable on purpose: e2e tests shorten the deadline through
 * `app.get(SupplierSettings)`; a job keeps the deadline it was queued with.
 */
export class SupplierSettings {
  /** Default deadline of a job, from queueing (SUPPLIER_JOB_DEADLINE_MS). */
  jobDeadlineMs: number;
  /** Accepted clock skew of a callback's timestamp, both ways (SUPPLIER_CALLBACK_WINDOW_SECONDS). */
  callbackWindowSeconds: number;
  /** External HTTP channels by name (SUPPLIER_CHANNELS or SUPPLIER_CHANNELS_FILE). */
  channels: Map<string, HttpChannelConfig>;
  /** Base of the service's own callback addresses (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /** Secret the callback tokens derive from (SIGNING_SECRET). */
  signingSecret: string;
  /**
   * Time to live of a worker's claim on a job (SUPPLIER_JOB_LEASE_MS): renewed while the
   * worker runs; when the worker dies, another one takes the job over after this long.
   */
  jobLeaseMs: number;

  constructor(values: Pick<SupplierSettings, 'jobDeadlineMs' | 'callbackWindowSeconds' | 'channels' | 'publicBaseUrl' | 'signingSecret'> & { jobLeaseMs?: number }) {
    this.jobDeadlineMs = values.jobDeadlineMs;
    this.callbackWindowSeconds = values.callbackWindowSeconds;
    this.channels = values.channels;
    this.publicBaseUrl = values.publicBaseUrl;
    this.signingSecret = values.signingSecret;
    this.jobLeaseMs = values.jobLeaseMs ?? 30_000;
  }
}

type Env = Record<string, string | undefined>;

const CHANNEL_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** Parses the channel map `{"name": {"base_url": …, "callback_secret": …, …}}`. */
export function parseChannels(text: string, variable: string): Map<string, HttpChannelConfig> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConfigError(variable, 'must be a JSON object of channels');
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(variable, 'must be a JSON object of channels');
  const out = new Map<string, HttpChannelConfig>();
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `${variable} channel ${JSON.stringify(name)}`;
    if (!CHANNEL_NAME.test(name) || name === 'local') throw new ConfigError(where, 'needs a name of [a-z0-9_-] (and not "local", the built-in supplier)');
    if (!value || typeof value !== 'object') throw new ConfigError(where, 'must be an object');
    const v = value as Record<string, unknown>;
    const known = ['base_url', 'api_key', 'callback_secret', 'request_timeout_ms', 'poll_after_ms', 'poll_interval_ms', 'deadline_ms', 'cancel_timeout_ms', 'retry_base_ms', 'retry_max_ms'];
    const unknown = Object.keys(v).find((k) => !known.includes(k));
    if (unknown) throw new ConfigError(where, `has an unknown setting ${unknown}`);
    let base: URL;
    try {
      base = new URL(String(v.base_url));
    } catch {
      throw new ConfigError(where, 'needs base_url, an http(s) URL');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ConfigError(where, 'needs base_url, an http(s) URL');
    if (typeof v.callback_secret !== 'string' || v.callback_secret.length < 16) throw new ConfigError(where, 'needs callback_secret of at least 16 characters');
    if (v.api_key !== undefined && typeof v.api_key !== 'string') throw new ConfigError(where, 'api_key must be a string');
    const ms = (key: string, def: number | undefined, min: number, max: number): number | undefined => {
      const x = v[key];
      if (x === undefined) return def;
      if (!Number.isInteger(x) || (x as number) < min || (x as number) > max) throw new ConfigError(where, `${key} must be an integer between ${min} and ${max}`);
      return x as number;
    };
    out.set(name, {
      name,
      baseUrl: base.toString().replace(/\/+$/, ''),
      apiKey: v.api_key as string | undefined,
      callbackSecret: v.callback_secret,
      requestTimeoutMs: ms('request_timeout_ms', 10_000, 10, 300_000)!,
      pollAfterMs: ms('poll_after_ms', 10_000, 10, 3_600_000)!,
      pollIntervalMs: ms('poll_interval_ms', 10_000, 10, 3_600_000)!,
      deadlineMs: ms('deadline_ms', undefined, 100, 7 * 86_400_000),
      cancelTimeoutMs: ms('cancel_timeout_ms', 30_000, 10, 3_600_000)!,
      retryBaseMs: ms('retry_base_ms', 500, 1, 60_000)!,
      retryMaxMs: ms('retry_max_ms', 30_000, 1, 600_000)!,
    });
  }
  return out;
}

export function loadSupplierSettings(config: AppConfig, env: Env = process.env): SupplierSettings {
  let channels = new Map<string, HttpChannelConfig>();
  if (env.SUPPLIER_CHANNELS && env.SUPPLIER_CHANNELS_FILE) throw new ConfigError('SUPPLIER_CHANNELS_FILE', 'cannot be set together with SUPPLIER_CHANNELS');
  if (env.SUPPLIER_CHANNELS) channels = parseChannels(env.SUPPLIER_CHANNELS, 'SUPPLIER_CHANNELS');
  if (env.SUPPLIER_CHANNELS_FILE) {
    let text: string;
    try {
      text = readFileSync(env.SUPPLIER_CHANNELS_FILE, 'utf8');
    } catch {
      throw new ConfigError('SUPPLIER_CHANNELS_FILE', 'cannot be read');
    }
    channels = parseChannels(text, 'SUPPLIER_CHANNELS_FILE');
  }
  return new SupplierSettings({
    jobDeadlineMs: envInt(env, 'SUPPLIER_JOB_DEADLINE_MS', 600_000, 100, 7 * 86_400_000),
    callbackWindowSeconds: envInt(env, 'SUPPLIER_CALLBACK_WINDOW_SECONDS', 300, 1, 86_400),
    channels,
    publicBaseUrl: config.publicBaseUrl,
    signingSecret: config.signingSecret,
    jobLeaseMs: envInt(env, 'SUPPLIER_JOB_LEASE_MS', 30_000, 1_000, 600_000),
  });
}
