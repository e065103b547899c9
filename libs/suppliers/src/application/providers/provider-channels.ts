import { ConfigError } from '@gensvc/config';
import { type LeaseStore } from '@gensvc/event-sourcing';
import type { ProviderChannelConfig } from '../../supplier-settings';
import type { ProviderAdapter, ProviderType } from './provider-adapter';
import { ProviderClient, ProviderUnreachable, type RequestObserver } from './provider-client';
import { RequestBudget } from './request-budget';

/** One configured provider channel: its settings, its adapter and the client that sends its requests. */
export class ProviderChannel {
  readonly client: ProviderClient;

  constructor(
    readonly config: ProviderChannelConfig,
    readonly adapter: ProviderAdapter,
    readonly budget: RequestBudget | undefined,
    observe?: RequestObserver,
  ) {
    this.client = new ProviderClient(config, adapter, budget, observe);
  }

  get name(): string {
    return this.config.name;
  }

  /** Probes a provider model without spending anything: `ok`, or the short code of the failure. */
  async probe(supplierModel: string, capability: string, signal: AbortSignal): Promise<string> {
    try {
      const answer = await this.client.send(this.adapter.probe(supplierModel, capability, this.config.baseUrl), signal, 'probe');
      return answer.status >= 200 && answer.status < 300 ? 'ok' : `http_${answer.status}`;
    } catch (err) {
      if (err instanceof ProviderUnreachable) return err.code;
      throw err;
    }
  }
}

/** The provider adapters by type (the infrastructure's translations). */
export type ProviderAdapters = Readonly<Partial<Record<ProviderType, ProviderAdapter>>>;

/** The deployment's provider channels by name (SUPPLIER_CHANNELS entries of a provider type). */
export class ProviderChannels {
  private readonly byName = new Map<string, ProviderChannel>();

  constructor(configs: Iterable<ProviderChannelConfig>, adapters: ProviderAdapters, leases: LeaseStore, observe?: RequestObserver) {
    const owner = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    for (const config of configs) {
      const budget = config.requestsPerMinute ? new RequestBudget(leases, config.name, config.requestsPerMinute, owner) : undefined;
      const adapter = adapters[config.type];
      if (!adapter) throw new ConfigError('SUPPLIER_CHANNELS', `channel "${config.name}" has type ${config.type}, which this build has no adapter for`);
      this.byName.set(config.name, new ProviderChannel(config, adapter, budget, observe));
    }
  }

  get(name: string): ProviderChannel | undefined {
    return this.byName.get(name);
  }

  all(): ProviderChannel[] {
    return [...this.byName.values()];
  }

  stop(): void {
    for (const c of this.byName.values()) c.budget?.stop();
  }
}
