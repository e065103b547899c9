import type { ProviderChannelConfig } from '../../supplier-settings';
import type { ProviderAdapter, ProviderAnswer, ProviderRequest } from './provider-adapter';
import type { RequestBudget } from './request-budget';

/**
 * Why a request to a provider produced no answer:
 * - `not_sent`: the connection was never made (refused, unreachable, name not found, or
 *   the connect timed out): the provider cannot have acted on it;
 * - `lost`: the request went out and no answer came back (a timeout or a reset afterwards):
 *   the provider may have acted on it.
 */
export class ProviderUnreachable extends Error {
  override name = 'ProviderUnreachable';
  constructor(
    readonly kind: 'not_sent' | 'lost',
    /** A short code for logs and metrics (`connect_failed`, `timeout`, `reset`). */
    readonly code: string,
  ) {
    super(`${kind === 'not_sent' ? 'the request was not sent' : 'the answer was lost'} (${code})`);
  }
}

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_INVALID_URL']);

/** What a channel's client counts per outcome (CONTRACT §15 metrics, `admin channels`), since this process started. */
export interface ChannelStats {
  /** Requests by `<kind>:<outcome>` (`status:ok`, `submit:http_429`, `probe:connect_failed`, …). */
  requests: Record<string, number>;
  latencyMsSum: number;
  latencyCount: number;
}

/** Observes every request a channel sends (metrics). */
export type RequestObserver = (channel: string, kind: string, outcome: string, seconds: number | null) => void;

/** How long an error counts as recent (`admin channels`). */
const RECENT_MS = 15 * 60_000;

/**
 * Sends one channel's requests: the base URL, the provider's authentication, JSON, the
 * request timeout and the channel's request budget. It answers with whatever status the
 * provider gave (classifying statuses is the channel's job) or throws `ProviderUnreachable`.
 * Redirects are not followed; an absolute URL is sent only to the channel's own origin or
 * an operator-configured output host.
 */
export class ProviderClient {
  readonly stats: ChannelStats = { requests: {}, latencyMsSum: 0, latencyCount: 0 };
  /** Errors of the last 15 minutes: time and short code. */
  private readonly recent: { at: number; code: string }[] = [];
  /** When each request of the last minute went out. */
  private readonly sent: number[] = [];

  constructor(
    readonly config: ProviderChannelConfig,
    readonly adapter: ProviderAdapter,
    readonly budget: RequestBudget | undefined,
    private readonly observe?: RequestObserver,
  ) {}

  /** Requests this process sent in the last 60 seconds. */
  sentLastMinute(): number {
    const since = Date.now() - 60_000;
    while (this.sent.length && this.sent[0]! < since) this.sent.shift();
    return this.sent.length;
  }

  /** Errors of the last 15 minutes by short code. */
  recentErrors(): Record<string, number> {
    const since = Date.now() - RECENT_MS;
    while (this.recent.length && this.recent[0]!.at < since) this.recent.shift();
    const out: Record<string, number> = {};
    for (const e of this.recent) out[e.code] = (out[e.code] ?? 0) + 1;
    return out;
  }

  /** The full URL of a request, or null when it points outside the channel's hosts. */
  resolve(url: string): string | null {
    if (url.startsWith('/')) return `${this.config.baseUrl}${url}`;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    return this.trusts(u) || (u.protocol === 'https:' && (this.adapter.apiHosts ?? []).includes(u.host)) ? u.toString() : null;
  }

  /** Whether a URL is on the channel's own origin or one of its configured output hosts. */
  trusts(u: URL): boolean {
    const base = new URL(this.config.baseUrl);
    if (u.origin === base.origin) return true;
    return (u.protocol === 'https:' || u.protocol === 'http:') && (this.config.outputHosts.includes(u.host.toLowerCase()) || this.config.outputHosts.includes(u.hostname.toLowerCase()));
  }

  async send(request: ProviderRequest, signal: AbortSignal, kind: string): Promise<ProviderAnswer> {
    const url = this.resolve(request.url);
    if (!url) throw new ProviderUnreachable('not_sent', 'untrusted_url');
    if (this.budget) await this.budget.take(signal, kind === 'submit' ? 'submit' : 'follow');
    const headers: Record<string, string> = { accept: 'application/json', ...this.adapter.auth(this.config.credential), ...(request.headers ?? {}) };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(this.config.requestTimeoutMs);
    const started = performance.now();
    this.sent.push(Date.now());
    if (this.sent.length > 100_000) this.sent.shift();
    let res: Response;
    try {
      res = await fetch(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: 'manual',
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw this.unreachable(kind, err, timeout.aborted);
    }
    let json: unknown = null;
    let raw: Buffer;
    try {
      raw = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      if (signal.aborted) throw err;
      throw this.unreachable(kind, err, timeout.aborted);
    }
    const type = res.headers.get('content-type') ?? '';
    if (raw.length && (type.includes('json') || type === '')) {
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = null;
      }
    }
    this.count(kind, res.status < 300 ? 'ok' : `http_${res.status}`, performance.now() - started);
    return { status: res.status, headers: res.headers, json, raw };
  }

  private unreachable(kind: string, err: unknown, timedOut: boolean): ProviderUnreachable {
    const cause = (err as { cause?: { code?: string } }).cause;
    const code = cause?.code ?? '';
    const out = NOT_SENT.has(code)
      ? new ProviderUnreachable('not_sent', 'connect_failed')
      : new ProviderUnreachable('lost', timedOut ? 'timeout' : code.startsWith('ERR_TLS') || code.includes('CERT') ? 'tls_error' : 'reset');
    this.count(kind, out.code, 0);
    return out;
  }

  private count(kind: string, outcome: string, ms: number): void {
    const key = `${kind}:${outcome}`;
    this.stats.requests[key] = (this.stats.requests[key] ?? 0) + 1;
    if (outcome !== 'ok') {
      this.recent.push({ at: Date.now(), code: outcome });
      if (this.recent.length > 10_000) this.recent.shift();
    }
    if (ms) {
      this.stats.latencyMsSum += ms;
      this.stats.latencyCount++;
    }
    this.observe?.(this.config.name, kind, outcome, ms ? ms / 1000 : null);
  }
}
