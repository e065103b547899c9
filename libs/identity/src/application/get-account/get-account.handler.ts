import { Injectable } from '@nestjs/common';
import { EventStore, loadAggregate } from '@gensvc/event-sourcing';
import { accountDecider } from '../../domain/account';
import { accountStream } from '../identity-streams';

export interface GetAccountQuery {
  readonly account_id: string;
}

/** Name and email of an active account, or null; folded from the account's stream (always current). */
@Injectable()
export class GetAccountHandler {
  constructor(private readonly events: EventStore) {}

  async execute(query: GetAccountQuery): Promise<{ name: string; email: string | null } | null> {
    const { state } = await loadAggregate(this.events, accountStream(query.account_id), accountDecider);
    return state.status === 'active' ? { name: state.name, email: state.email } : null;
  }
}
