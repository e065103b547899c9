import { Injectable } from '@nestjs/common';
import { ProviderChannels } from '../providers/provider-channels';
import { SupplierChannels } from '../supplier-channel';

/**
 * Deletes a voice at the supplier channel that made it: a provider channel where its adapter
 * has a way to, an HTTP supplier by `DELETE /voices/{id}`, the built-in supplier has nothing
 * to delete. Idempotent: a voice already gone there counts as deleted. A throw means "try
 * again later".
 */
@Injectable()
export class ChannelVoiceRemover {
  constructor(
    private readonly channels: SupplierChannels,
    private readonly providers: ProviderChannels,
  ) {}

  async remove(supplier: string, supplierVoiceId: string): Promise<void> {
    const provider = this.providers.get(supplier);
    if (provider) {
      // A provider voice: deleted at the provider that made it, where it has a way to.
      const request = provider.adapter.deleteVoice?.(supplierVoiceId);
      if (!request) return;
      const answer = await provider.client.send(request, AbortSignal.timeout(60_000), 'delete_voice');
      // 5xx and 429 throw (the deletion is retried); a 404 means already gone.
      if (answer.status >= 500 || answer.status === 429) throw new Error(`the provider answered ${answer.status} to a voice deletion`);
      return;
    }
    const channel = this.channels.get(supplier);
    if (!channel) return; // a channel no longer configured: nothing can be deleted there
    await channel.deleteVoice(supplierVoiceId, AbortSignal.timeout(60_000));
  }
}
