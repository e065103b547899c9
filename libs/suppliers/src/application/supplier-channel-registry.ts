import { Injectable, Logger } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { ConfigError } from '@gensvc/shared';
import { CallbackTokens, isLocalBaseUrl } from '../infrastructure/http/callback-security';
import { HttpSupplierChannel } from '../infrastructure/http/http-supplier.channel';
import { LocalSupplierChannel } from '../infrastructure/local/local-supplier.channel';
import { SupplierSettings } from '../supplier-settings';
import { JobResources } from './job-outputs';
import { SupplierChannel, SupplierChannels } from './supplier-channel';

/**
 * The channels of this deployment: the built-in `local` supplier plus one HTTP channel per
 * SUPPLIER_CHANNELS entry. Checked at start: every available catalogue model must name a
 * channel that exists (fail fast with the variable's name).
 */
@Injectable()
export class SupplierChannelRegistry extends SupplierChannels {
  private readonly logger = new Logger('SupplierChannels');
  private readonly byName = new Map<string, SupplierChannel>();

  constructor(settings: SupplierSettings, catalogue: Catalogue, resources: JobResources, local: LocalSupplierChannel) {
    super();
    this.byName.set(local.name, local);
    const tokens = new CallbackTokens(settings.signingSecret);
    for (const config of settings.channels.values()) {
      this.byName.set(config.name, new HttpSupplierChannel(config, catalogue, resources, tokens, settings.publicBaseUrl));
    }
    for (const m of catalogue.models()) {
      if (this.byName.has(m.supplier)) continue;
      if (m.available) throw new ConfigError('SUPPLIER_CHANNELS', `has no channel "${m.supplier}" that catalogue model ${m.id} needs`);
      this.logger.warn(`catalogue model ${m.id} names channel "${m.supplier}", which is not configured (the model is unavailable)`);
    }
    if (settings.channels.size && isLocalBaseUrl(settings.publicBaseUrl)) {
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
