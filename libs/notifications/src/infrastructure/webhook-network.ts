import { resolveAll } from '@gensvc/http';

/**
 * Name resolution for webhook deliveries (DESIGN rule 11: DNS is a port). The sender checks
 * every address `resolve` returns, then connects to exactly a checked address (no second
 * lookup, so no DNS-rebinding window). Tests pass their own subclass through
 * `NotificationsModule.forRoot({ network })`; `main.ts` never does.
 */
export abstract class WebhookNetwork {
  /** Every address of `hostname` (IPv4 and IPv6). */
  abstract resolve(hostname: string): Promise<string[]>;
}

export class DnsWebhookNetwork extends WebhookNetwork {
  resolve(hostname: string): Promise<string[]> {
    return resolveAll(hostname);
  }
}
