import { Injectable } from '@nestjs/common';
import { SupplierVoiceRemover } from '@gensvc/voices/contracts';
import { SupplierChannels } from '../supplier-channel';

/** The `SupplierVoiceRemover` port the voices context declares: voice deletion at the channel that made the voice. */
@Injectable()
export class ChannelVoiceRemover extends SupplierVoiceRemover {
  constructor(private readonly channels: SupplierChannels) {
    super();
  }

  async remove(supplier: string, supplierVoiceId: string): Promise<void> {
    const channel = this.channels.get(supplier);
    if (!channel) return; // a channel no longer configured: nothing can be deleted there
    await channel.deleteVoice(supplierVoiceId, AbortSignal.timeout(60_000));
  }
}
