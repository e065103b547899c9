import { readFileSync } from 'node:fs';
import { AppConfig, ConfigError, envInt } from '@gensvc/config';
import type { ProviderType } from './application/providers/provider-adapter';

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

/** One provider account of a real provider (CONTRACT §14, docs/channels.md). */
export interface ProviderChannelConfig {
  readonly name: string;
  readonly type: ProviderType;
  /** The provider API's base (the type's documented default unless configured). */
  readonly baseUrl: string;
  /** `api_token` (Replicate) or `api_key` (the others); sent as the provider's auth header. */
  readonly credential: string;
  /** Where the provider signs webhooks: they are asked for and verified; without it the channel polls. */
  readonly webhookSecret?: string;
  readonly requestTimeoutMs: number;
  /** Status polls of one job are this far apart (while no webhook reported). */
  readonly pollIntervalMs: number;
  readonly deadlineMs?: number;
  /** Requests per minute toward the provider, shared by all jobs, probes and processes. */
  readonly requestsPerMinute?: number;
  readonly probeIntervalS: number;
  /** Hosts output files may be downloaded from besides base_url's (trusted as configured). */
  readonly outputHosts: readonly string[];
  /** A cancellation the provider neither confirms nor refuses within this time is `unconfirmed`. */
  readonly cancelTimeoutMs: number;
}

export const PROVIDER_TYPES: readonly ProviderType[] = ['replicate', 'fal', 'openai', 'dashscope', 'ark'];

const PROVIDER_DEFAULTS: Record<ProviderType, { baseUrl: string; credential: 'api_token' | 'api_key' }> = {
  replicate: { baseUrl: 'https://api.replicate.com', credential: 'api_token' },
  fal: { baseUrl: 'https://queue.fal.run', credential: 'api_key' },
  openai: { baseUrl: 'https://api.openai.com/v1', credential: 'api_key' },
  dashscope: { baseUrl: 'https://dashscope.aliyuncs.com', credential: 'api_key' },
  ark: { baseUrl: 'https://ark.cn-beijing.volces.com', credential: 'api_key' },
};

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
  /** External channels speaking libs/suppliers/PROTOCOL.md (`type` gensvc), by name. */
  channels: Map<string, HttpChannelConfig>;
  /** Channels of real providers (`type` replicate, fal, openai, dashscope, ark), by name. */
  providers: Map<string, ProviderChannelConfig>;
  /** Base of the service's own callback addresses (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /** Secret the callback tokens derive from (SIGNING_SECRET). */
  signingSecret: string;
  /**
   * Time to live of a worker's claim on a job (SUPPLIER_JOB_LEASE_MS): renewed while the
   * worker runs; when the worker dies, another one takes the job over after this long.
   */
  jobLeaseMs: number;

  /** Largest output file archived from a provider (SUPPLIER_OUTPUT_MAX_BYTES). */
  outputMaxBytes: number;

  constructor(
    values: Pick<SupplierSettings, 'jobDeadlineMs' | 'callbackWindowSeconds' | 'channels' | 'publicBaseUrl' | 'signingSecret'> & {
      jobLeaseMs?: number;
      providers?: Map<string, ProviderChannelConfig>;
      outputMaxBytes?: number;
    },
  ) {
    this.jobDeadlineMs = values.jobDeadlineMs;
    this.callbackWindowSeconds = values.callbackWindowSeconds;
    this.channels = values.channels;
    this.providers = values.providers ?? new Map();
    this.outputMaxBytes = values.outputMaxBytes ?? 1024 * 1024 * 1024;
    this.publicBaseUrl = values.publicBaseUrl;
    this.signingSecret = values.signingSecret;
    this.jobLeaseMs = values.jobLeaseMs ?? 30_000;
  }
}

type Env = Record<string, string | undefined>;

const CHANNEL_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** The channels of SUPPLIER_CHANNELS(_FILE): gensvc-protocol channels and provider channels. */
export interface ParsedChannels {
  readonly channels: Map<string, HttpChannelConfig>;
  readonly providers: Map<string, ProviderChannelConfig>;
}

/**
 * Parses the channel map `{"name": {"type": …, …}, …}` (CONTRACT §14). A channel without
 * `type` is a `gensvc` channel. Errors name the variable, the channel and the field.
 */
export function parseChannels(text: string, variable: string): ParsedChannels {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConfigError(variable, 'must be a JSON object of channels');
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(variable, 'must be a JSON object of channels');
  const channels = new Map<string, HttpChannelConfig>();
  const providers = new Map<string, ProviderChannelConfig>();
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `${variable} channel ${JSON.stringify(name)}`;
    if (!CHANNEL_NAME.test(name) || name === 'local') throw new ConfigError(where, 'needs a name of [a-z0-9_-] (and not "local", the built-in supplier)');
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(where, 'must be an object');
    const v = value as Record<string, unknown>;
    const type = v.type ?? 'gensvc';
    if (type === 'gensvc') channels.set(name, parseGensvcChannel(name, v, where));
    else if (typeof type === 'string' && (PROVIDER_TYPES as readonly string[]).includes(type)) providers.set(name, parseProviderChannel(name, type as ProviderType, v, where));
    else throw new ConfigError(where, `type must be one of gensvc, ${PROVIDER_TYPES.join(', ')}`);
  }
  return { channels, providers };
}

type Field = (key: string, def: number | undefined, min: number, max: number) => number | undefined;

function intField(v: Record<string, unknown>, where: string): Field {
  return (key, def, min, max) => {
    const x = v[key];
    if (x === undefined) return def;
    if (!Number.isInteger(x) || (x as number) < min || (x as number) > max) throw new ConfigError(where, `${key} must be an integer between ${min} and ${max}`);
    return x as number;
  };
}

function baseUrlField(v: Record<string, unknown>, where: string, fallback?: string): string {
  if (v.base_url === undefined && fallback) return fallback;
  let base: URL;
  try {
    base = new URL(String(v.base_url));
  } catch {
    throw new ConfigError(where, 'needs base_url, an http(s) URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ConfigError(where, 'needs base_url, an http(s) URL');
  return base.toString().replace(/\/+$/, '');
}

function unknownField(v: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(v).find((k) => !known.includes(k));
  if (unknown) throw new ConfigError(where, `has an unknown setting ${unknown}`);
}

function parseGensvcChannel(name: string, v: Record<string, unknown>, where: string): HttpChannelConfig {
  unknownField(v, ['type', 'base_url', 'api_key', 'callback_secret', 'request_timeout_ms', 'poll_after_ms', 'poll_interval_ms', 'deadline_ms', 'cancel_timeout_ms', 'retry_base_ms', 'retry_max_ms'], where);
  const baseUrl = baseUrlField(v, where);
  if (typeof v.callback_secret !== 'string' || v.callback_secret.length < 16) throw new ConfigError(where, 'needs callback_secret of at least 16 characters');
  if (v.api_key !== undefined && typeof v.api_key !== 'string') throw new ConfigError(where, 'api_key must be a string');
  const ms = intField(v, where);
  return {
    name,
    baseUrl,
    apiKey: v.api_key as string | undefined,
    callbackSecret: v.callback_secret,
    requestTimeoutMs: ms('request_timeout_ms', 10_000, 10, 300_000)!,
    pollAfterMs: ms('poll_after_ms', 10_000, 10, 3_600_000)!,
    pollIntervalMs: ms('poll_interval_ms', 10_000, 10, 3_600_000)!,
    deadlineMs: ms('deadline_ms', undefined, 100, 7 * 86_400_000),
    cancelTimeoutMs: ms('cancel_timeout_ms', 30_000, 10, 3_600_000)!,
    retryBaseMs: ms('retry_base_ms', 500, 1, 60_000)!,
    retryMaxMs: ms('retry_max_ms', 30_000, 1, 600_000)!,
  };
}

function parseProviderChannel(name: string, type: ProviderType, v: Record<string, unknown>, where: string): ProviderChannelConfig {
  const defaults = PROVIDER_DEFAULTS[type];
  unknownField(
    v,
    ['type', 'base_url', defaults.credential, 'webhook_secret', 'request_timeout_ms', 'poll_interval_ms', 'deadline_ms', 'requests_per_minute', 'probe_interval_s', 'output_hosts', 'cancel_timeout_ms'],
    where,
  );
  const credential = v[defaults.credential];
  if (typeof credential !== 'string' || !credential.trim()) throw new ConfigError(where, `needs ${defaults.credential}, the provider's credential`);
  if (v.webhook_secret !== undefined && (typeof v.webhook_secret !== 'string' || v.webhook_secret.length < 8)) throw new ConfigError(where, 'webhook_secret must be the secret the provider signs webhooks with');
  const hosts = v.output_hosts ?? [];
  if (!Array.isArray(hosts) || !hosts.every((h) => typeof h === 'string' && /^[a-z0-9.-]+(:\d{1,5})?$/i.test(h))) {
    throw new ConfigError(where, 'output_hosts must be an array of host names (host or host:port)');
  }
  const n = intField(v, where);
  return {
    name,
    type,
    baseUrl: baseUrlField(v, where, defaults.baseUrl),
    credential,
    webhookSecret: v.webhook_secret as string | undefined,
    requestTimeoutMs: n('request_timeout_ms', 30_000, 10, 600_000)!,
    pollIntervalMs: n('poll_interval_ms', 5_000, 100, 3_600_000)!,
    deadlineMs: n('deadline_ms', undefined, 100, 7 * 86_400_000),
    requestsPerMinute: n('requests_per_minute', undefined, 1, 1_000_000),
    probeIntervalS: n('probe_interval_s', 300, 1, 86_400)!,
    outputHosts: (hosts as string[]).map((h) => h.toLowerCase()),
    cancelTimeoutMs: n('cancel_timeout_ms', 30_000, 10, 3_600_000)!,
  };
}

export function loadSupplierSettings(config: AppConfig, env: Env = process.env): SupplierSettings {
  let parsed: ParsedChannels = { channels: new Map(), providers: new Map() };
  if (env.SUPPLIER_CHANNELS && env.SUPPLIER_CHANNELS_FILE) throw new ConfigError('SUPPLIER_CHANNELS_FILE', 'cannot be set together with SUPPLIER_CHANNELS');
  if (env.SUPPLIER_CHANNELS) parsed = parseChannels(env.SUPPLIER_CHANNELS, 'SUPPLIER_CHANNELS');
  if (env.SUPPLIER_CHANNELS_FILE) {
    let text: string;
    try {
      text = readFileSync(env.SUPPLIER_CHANNELS_FILE, 'utf8');
    } catch {
      throw new ConfigError('SUPPLIER_CHANNELS_FILE', 'cannot be read');
    }
    parsed = parseChannels(text, 'SUPPLIER_CHANNELS_FILE');
  }
  return new SupplierSettings({
    jobDeadlineMs: envInt(env, 'SUPPLIER_JOB_DEADLINE_MS', 600_000, 100, 7 * 86_400_000),
    callbackWindowSeconds: envInt(env, 'SUPPLIER_CALLBACK_WINDOW_SECONDS', 300, 1, 86_400),
    channels: parsed.channels,
    providers: parsed.providers,
    outputMaxBytes: envInt(env, 'SUPPLIER_OUTPUT_MAX_BYTES', 1024 * 1024 * 1024, 1024, 16 * 1024 * 1024 * 1024),
    publicBaseUrl: config.publicBaseUrl,
    signingSecret: config.signingSecret,
    jobLeaseMs: envInt(env, 'SUPPLIER_JOB_LEASE_MS', 30_000, 1_000, 600_000),
  });
}
