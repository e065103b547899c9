import { Injectable } from '@nestjs/common';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIpLiteral, pinnedLookup, resolveCheckedHost } from '@gensvc/http';
import { isLoopback, refusedWebhookAddress } from '../application/endpoints/webhook-address';
import { NotificationSettings } from '../notification-settings';
import { WebhookNetwork } from './webhook-network';

export interface WebhookRequest {
  readonly url: string;
  readonly messageId: string;
  readonly timestamp: number;
  readonly signature: string;
  readonly body: string;
}

export interface WebhookResponse {
  /** null when no answer came (refused address, network error, timeout). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  /**
   * What the account sees of a failure: a short code, never a network library's message (which
   * would make deliveries a scanner of ports and TLS set-ups): `http_<status>`, `timeout`,
   * `connect_failed`, `tls_error`, `dns_failed`, `address_refused`, `port_refused`,
   * `interrupted` (and `secret_unreadable`, recorded by the runner); null when delivered.
   */
  readonly error: AttemptError | null;
  readonly kind: 'answered' | 'refused_address' | 'timeout' | 'network_error';
  /** The cause in words, for the service's own log only (never recorded on the delivery). */
  readonly detail?: string;
}

export type AttemptError = `http_${number}` | 'timeout' | 'connect_failed' | 'tls_error' | 'dns_failed' | 'address_refused' | 'port_refused' | 'interrupted' | 'secret_unreadable';

/** Whether a network error comes from TLS (OpenSSL's and Node's TLS errors, certificate checks). */
export function isTlsError(err: NodeJS.ErrnoException & { library?: string; reason?: string }): boolean {
  if (err.library === 'SSL routines' || /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/.test(err.code ?? '')) return true;
  return /\b(SSL|TLS)\b|certificate|wrong version number/i.test(err.message);
}

/**
 * Whether a webhook may be sent to `port` of `address`: loopback receivers (with
 * WEBHOOKS_ALLOW_LOCAL) on any port, every other address on 443 or a port the operator
 * allowed (WEBHOOK_ALLOWED_PORTS).
 */
export function portAllowed(port: number, loopbackAllowed: boolean, allowedPorts: readonly number[]): boolean {
  return loopbackAllowed || port === 443 || allowedPorts.includes(port);
}

/**
 * Sends one attempt: resolves the host now, checks every address with the import guard
 * (loopback too with WEBHOOKS_ALLOW_LOCAL) and the port (443 or WEBHOOK_ALLOWED_PORTS; any
 * port on an allowed loopback address), connects to the checked address, POSTs the body with
 * the Standard Webhooks headers, follows no redirect, reads at most a few KiB of the answer
 * and gives up after the attempt time limit (15 s). A failure is reported as a short code.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly network: WebhookNetwork,
    private readonly settings: NotificationSettings,
  ) {}

  async send(req: WebhookRequest, signal?: AbortSignal): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(req.url);
    const checked = await resolveCheckedHost(url, (name) => this.network.resolve(name), (a) => refusedWebhookAddress(a, this.settings.allowLocal));
    const host = checked.host;
    if (!checked.ok) {
      if (checked.reason === 'unresolved') {
        return { statusCode: null, durationMs: elapsed(), error: 'dns_failed', kind: 'network_error', detail: `${host} could not be resolved (${(checked.error as NodeJS.ErrnoException).code ?? 'error'})` };
      }
      if (checked.reason === 'no_address') return { statusCode: null, durationMs: elapsed(), error: 'dns_failed', kind: 'network_error', detail: `${host} has no address` };
      return { statusCode: null, durationMs: elapsed(), error: 'address_refused', kind: 'refused_address', detail: `${host} resolves to ${checked.address}, which is not a public address (${checked.why})` };
    }
    const address = checked.addresses[0];
    const https = url.protocol === 'https:';
    const port = url.port ? Number(url.port) : https ? 443 : 80;
    if (!portAllowed(port, this.settings.allowLocal && isLoopback(address), this.settings.allowedPorts)) {
      return { statusCode: null, durationMs: elapsed(), error: 'port_refused', kind: 'refused_address', detail: `port ${port} is not allowed (WEBHOOK_ALLOWED_PORTS)` };
    }
    const lookup = pinnedLookup(address);
    const timeout = AbortSignal.timeout(this.settings.attemptTimeoutMs);
    const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const payload = Buffer.from(req.body, 'utf8');
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const finish = (r: WebhookResponse) => {
        if (settled) return;
        settled = true;
        resolve(r);
      };
      const onResponse = (res: IncomingMessage) => {
        // The status decides; of the answer at most a few KiB are read, then the connection closes.
        const code = res.statusCode ?? 0;
        const ok = code >= 200 && code < 300;
        finish({ statusCode: code, durationMs: elapsed(), error: ok ? null : `http_${code}`, kind: 'answered' });
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= this.settings.responseReadBytes) res.destroy();
        });
        res.on('end', () => res.destroy());
        res.on('error', () => undefined);
      };
      const options = {
        host: isIpLiteral(url.hostname) ? address : host,
        port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        lookup,
        agent: false as const,
        signal: abort,
        headers: {
          Host: url.host,
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
          'User-Agent': 'gensvc-webhooks/0.1',
          'webhook-id': req.messageId,
          'webhook-timestamp': String(req.timestamp),
          'webhook-signature': req.signature,
        },
      };
      const r = https ? httpsRequest({ ...options, servername: isIpLiteral(url.hostname) ? undefined : host }, onResponse) : httpRequest(options, onResponse);
      r.on('error', (err: NodeJS.ErrnoException) => {
        const detail = `${err.code ?? 'error'}: ${err.message}`.slice(0, 300);
        if (timeout.aborted) finish({ statusCode: null, durationMs: elapsed(), error: 'timeout', kind: 'timeout', detail: `no answer within ${Math.round(this.settings.attemptTimeoutMs / 1000)} s` });
        else if (signal?.aborted) finish({ statusCode: null, durationMs: elapsed(), error: 'interrupted', kind: 'network_error', detail: 'the service is stopping' });
        else finish({ statusCode: null, durationMs: elapsed(), error: isTlsError(err) ? 'tls_error' : 'connect_failed', kind: 'network_error', detail });
      });
      r.end(payload);
    });
  }
}
