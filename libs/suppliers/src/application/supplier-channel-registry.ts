import { Inject, Injectable, Logger } from '@nestjs/common';
import { Catalogue, ROUTED } from '@gensvc/catalogue/contracts';
import { ConfigError } from '@gensvc/config';
import { CallbackTokens, isLocalBaseUrl } from '../infrastructure/http/callback-security';
import { HttpSupplierChannel } from '../infrastructure/http/http-supplier.channel';
import { LocalSupplierChannel } from '../infrastructure/local/local-supplier.channel';
import { SupplierSettings } from '../supplier-settings';
import { JobResources } from './job-outputs';
import { ProviderChannels } from './providers/provider-channels';
import { RouteProber } from './providers/route-prober';
import { RoutedChannel, type RouteHealth } from './providers/routed-channel';
import { SupplierChannel, SupplierChannels } from './supplier-channel';

/**
 * The channels of this deployment: the built-in `local` supplier, one HTTP channel per
 * gensvc-protocol entry of SUPPLIER_CHANNELS, and the routed channel that runs models with
 * `routes` on the provider channels. Checked at start: every available catalogue model must
 * name a channel that exists, and every route a provider channel (fail fast naming the
 * variable, the model and the route).
 */
@Injectable()
export class SupplierChannelRegistry extends SupplierChannels {
  private readonly logger = new Logger('SupplierChannels');
  private readonly byName = new Map<string, SupplierChannel>();

  constructor(settings: SupplierSettings, catalogue: Catalogue, resources: JobResources, local: LocalSupplierChannel, providers: ProviderChannels, @Inject(RouteProber) health: RouteHealth) {
    super();
    this.byName.set(local.name, local);
    const tokens = new CallbackTokens(settings.signingSecret);
    for (const config of settings.channels.values()) {
      this.byName.set(config.name, new HttpSupplierChannel(config, catalogue, resources, tokens, settings.publicBaseUrl, settings.outputMaxBytes));
    }
    const addresses = { url: (taskId: string) => `${settings.publicBaseUrl}/v1/supplier-callbacks/${tokens.seal(taskId)}` };
    this.byName.set(
      ROUTED,
      new RoutedChannel(catalogue, providers, resources, addresses, health, { outputMaxBytes: settings.outputMaxBytes, inputsAsData: isLocalBaseUrl(settings.publicBaseUrl) }),
    );
    for (const m of catalogue.models()) {
      for (const [i, r] of (m.routes ?? []).entries()) {
        if (providers.get(r.channel)) continue;
        const why = settings.channels.has(r.channel) || r.channel === local.name ? 'is not a provider channel (routes run on provider channels; a gensvc or local model names it in supplier)' : 'is not configured';
        if (m.available) throw new ConfigError('SUPPLIER_CHANNELS', `channel "${r.channel}" ${why}: catalogue model ${m.id} routes[${i}] needs it`);
        this.logger.warn(`catalogue model ${m.id} routes[${i}] names channel "${r.channel}", which ${why} (the route is skipped)`);
      }
      if (this.byName.has(m.supplier)) continue;
      if (m.available) throw new ConfigError('SUPPLIER_CHANNELS', `has no channel "${m.supplier}" that catalogue model ${m.id} needs`);
      this.logger.warn(`catalogue model ${m.id} names channel "${m.supplier}", which is not configured (the model is unavailable)`);
    }
    if ((settings.channels.size || settings.providers.size) && isLocalBaseUrl(settings.publicBaseUrl)) {
      this.logger.warn('PUBLIC_BASE_URL is local: external suppliers cannot reach the callback address; results arrive by polling');
    }
  }

  get(name: string): SupplierChannel | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
