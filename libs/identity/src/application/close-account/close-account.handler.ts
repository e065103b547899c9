import { Injectable } from '@nestjs/common';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { type Command } from '@gensvc/kernel';
import { accountDecider } from '../../domain/account';
import { accountStream } from '../identity-streams';

export type CloseAccountCommand = Command<'CloseAccount', { readonly account_id: string }>;

/** AccountClosed: every key, OAuth grant and upload token of the account stops working. */
@Injectable()
export class CloseAccountHandler {
  constructor(private readonly events: EventStore) {}

  async execute(cmd: CloseAccountCommand): Promise<{ position?: bigint }> {
    const result = await handleCommand(this.events, accountStream(cmd.data.account_id), accountDecider, { type: 'CloseAccount', data: {}, metadata: cmd.metadata });
    return { position: result.position };
  }
}
