import { Injectable } from '@nestjs/common';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIpLiteral, pinnedLookup, resolveCheckedHost } from '@gensvc/shared';
import { refusedWebhookAddress } from '../application/endpoints/webhook-address';
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
  readonly error: string | null;
  readonly kind: 'answered' | 'refused_address' | 'timeout' | 'network_error';
}

/**
 * Sends one attempt: resolves the host now, checks every address with the import guard
 * (loopback too with WEBHOOKS_ALLOW_LOCAL), connects to the checked address, POSTs the body
 * with the Standard Webhooks headers, follows no redirect, reads at most a few KiB of the
 * answer and gives up after the attempt time limit (15 s).
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
        return { statusCode: null, durationMs: elapsed(), error: `${host} could not be resolved (${(checked.error as NodeJS.ErrnoException).code ?? 'error'})`, kind: 'network_error' };
      }
      if (checked.reason === 'no_address') return { statusCode: null, durationMs: elapsed(), error: `${host} has no address`, kind: 'network_error' };
      return { statusCode: null, durationMs: elapsed(), error: `refused address: ${host} resolves to ${checked.address}, which is not a public address (${checked.why})`, kind: 'refused_address' };
    }
    const address = checked.addresses[0];
    const lookup = pinnedLookup(address);
    const timeout = AbortSignal.timeout(this.settings.attemptTimeoutMs);
    const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const https = url.protocol === 'https:';
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
        finish({ statusCode: code, durationMs: elapsed(), error: ok ? null : `the receiver answered HTTP ${code}`, kind: 'answered' });
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
        port: url.port ? Number(url.port) : https ? 443 : 80,
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
        if (timeout.aborted) finish({ statusCode: null, durationMs: elapsed(), error: `no answer within ${Math.round(this.settings.attemptTimeoutMs / 1000)} s`, kind: 'timeout' });
        else if (signal?.aborted) finish({ statusCode: null, durationMs: elapsed(), error: 'interrupted: the service is stopping', kind: 'network_error' });
        else finish({ statusCode: null, durationMs: elapsed(), error: `${err.code ?? 'error'}: ${err.message}`.slice(0, 300), kind: 'network_error' });
      });
      r.end(payload);
    });
  }
}
