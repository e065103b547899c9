import type { Logger } from '@nestjs/common';
import { ProviderProtocolError, type ProviderJobStatus } from './provider-adapter';
import { ProviderUnreachable } from './provider-client';
import type { ProviderChannel } from './provider-channels';

/**
 * Learns the status of many open jobs of one channel from the provider's job list (newest
 * first, a page per request) instead of a status request each. Lookups that arrive while a
 * sweep runs wait for the next one; a sweep reads pages until it found every job it was asked
 * about, the list ends, or it read a few pages more than the channel's open jobs fill (the
 * jobs that asked in the last ten minutes): older jobs buried under the account's other
 * traffic are then asked for one by one.
 */
export class StatusSweeper {
  private pending = new Map<string, ((status: ProviderJobStatus | undefined) => void)[]>();
  private running = false;
  private signal: AbortSignal | undefined;
  /** The jobs that asked lately, and when: how deep in the list this channel's open jobs go. */
  private readonly open = new Map<string, number>();

  constructor(
    private readonly channel: ProviderChannel,
    private readonly logger: Logger,
  ) {}

  lookup(remoteId: string, signal: AbortSignal): Promise<ProviderJobStatus | undefined> {
    this.signal ??= signal;
    this.open.delete(remoteId);
    this.open.set(remoteId, Date.now());
    return new Promise((resolve) => {
      const waiting = this.pending.get(remoteId);
      if (waiting) waiting.push(resolve);
      else this.pending.set(remoteId, [resolve]);
      this.kick();
    });
  }

  private kick(): void {
    if (this.running || !this.pending.size) return;
    this.running = true;
    const wanted = this.pending;
    this.pending = new Map();
    void this.sweep(wanted).finally(() => {
      this.running = false;
      this.kick();
    });
  }

  private async sweep(wanted: Map<string, ((status: ProviderJobStatus | undefined) => void)[]>): Promise<void> {
    const { adapter, client } = this.channel;
    const since = Date.now() - 600_000;
    for (const [id, at] of this.open) {
      if (at >= since) break; // in order of their last ask: the rest are newer
      this.open.delete(id);
    }
    const maxPages = Math.ceil(Math.max(wanted.size, this.open.size) / 100) + 2; // pages hold 100 or more
    let cursor: string | null = null;
    try {
      for (let page = 0; wanted.size && page < maxPages; page++) {
        const answer = await client.send(adapter.list!(cursor), this.signal ?? new AbortController().signal, 'list');
        if (answer.status < 200 || answer.status > 299) break;
        const { jobs, next } = adapter.readList!(answer, cursor);
        for (const job of jobs) {
          const resolvers = wanted.get(job.remoteId);
          if (!resolvers) continue;
          wanted.delete(job.remoteId);
          for (const resolve of resolvers) resolve(job.status);
        }
        if (!next) break;
        cursor = next;
      }
    } catch (err) {
      if (!(err instanceof ProviderUnreachable) && !(err instanceof ProviderProtocolError)) this.logger.warn({ err, channel: this.channel.name }, 'reading the provider job list failed');
    } finally {
      for (const resolvers of wanted.values()) for (const resolve of resolvers) resolve(undefined);
    }
  }
}
