import { Injectable } from '@nestjs/common';
import { EventStore, loadAggregate } from '@gensvc/event-sourcing';
import { accountDecider, emailClaimDecider, normalizeEmail, validEmail } from '../../domain/account';
import { PasswordHasher } from '../../infrastructure/password-hasher';
import { accountStream, emailStream } from '../identity-streams';

export interface SignInQuery {
  readonly email: string;
  readonly password: string;
}

/**
 * Account sign-in on the authorization page: the account id for a right email and password
 * of an active account, or null, with the same answer and cost for every failure (a
 * password is hashed even when no account matches).
 */
@Injectable()
export class SignInHandler {
  constructor(
    private readonly events: EventStore,
    private readonly passwords: PasswordHasher,
  ) {}

  async execute(query: SignInQuery): Promise<string | null> {
    const normalized = normalizeEmail(String(query.email ?? ''));
    const claim = validEmail(normalized) ? await loadAggregate(this.events, emailStream(normalized), emailClaimDecider) : null;
    const accountId = claim?.state.accountId ?? null;
    const account = accountId ? (await loadAggregate(this.events, accountStream(accountId), accountDecider)).state : null;
    const stored = account && account.status === 'active' ? account.passwordHash : null;
    const ok = await this.passwords.verify(String(query.password ?? ''), stored);
    return ok && accountId ? accountId : null;
  }
}
