import { Injectable } from '@nestjs/common';
import { AppError, newId, type Command } from '@gensvc/kernel';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { accountDecider, emailClaimDecider, normalizeEmail, validEmail } from '../../domain/account';
import { PasswordHasher } from '../../infrastructure/password-hasher';
import { CreateApiKeyHandler } from '../create-api-key/create-api-key.handler';
import { accountStream, emailStream } from '../identity-streams';

/** Opens an account, optionally with an email + password login (both or neither). */
export type CreateAccountCommand = Command<'CreateAccount', { readonly name: string; readonly email?: string; readonly password?: string }>;

export interface CreatedAccount {
  readonly accountId: string;
  readonly keyId: string;
  /** Shown once; only its hash is stored. */
  readonly apiKey: string;
  /** Global position of the last event written (wait for it before reading projections). */
  readonly position: bigint;
}

/**
 * `account create` of the admin CLI (and tests): claims the email first (one account per
 * email, EmailClaimed on `accountemail-<sha256>`), opens the account (AccountOpened, the
 * password hashed) and issues its first API key.
 */
@Injectable()
export class CreateAccountHandler {
  constructor(
    private readonly events: EventStore,
    private readonly passwords: PasswordHasher,
    private readonly apiKeys: CreateApiKeyHandler,
  ) {}

  async execute(cmd: CreateAccountCommand): Promise<CreatedAccount> {
    const input = cmd.data;
    const name = (input.name ?? '').trim();
    if (name.length < 1 || name.length > 200) throw new AppError('VALIDATION_ERROR', 'name must be 1 to 200 characters');
    const hasEmail = input.email !== undefined && input.email !== '';
    const hasPassword = input.password !== undefined && input.password !== '';
    if (hasEmail !== hasPassword) throw new AppError('VALIDATION_ERROR', 'email and password must be given together');
    let email: string | null = null;
    let passwordHash: string | null = null;
    const accountId = newId('acc');
    if (hasEmail) {
      email = normalizeEmail(input.email!);
      if (!validEmail(email)) throw new AppError('VALIDATION_ERROR', 'email is not a valid address');
      if (input.password!.length < 8 || input.password!.length > 1024) throw new AppError('VALIDATION_ERROR', 'password must be 8 to 1024 characters');
      passwordHash = await this.passwords.hash(input.password!);
      await handleCommand(this.events, emailStream(email), emailClaimDecider, { type: 'ClaimEmail', data: { email, account_id: accountId }, metadata: cmd.metadata });
    }
    await handleCommand(this.events, accountStream(accountId), accountDecider, { type: 'OpenAccount', data: { account_id: accountId, name, email, password_hash: passwordHash }, metadata: cmd.metadata });
    const key = await this.apiKeys.issue(accountId, cmd.metadata);
    return { accountId, ...key };
  }
}
