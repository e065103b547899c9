import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { AppError, Clock, EventStore, handleCommand, loadAggregate, newId, streamName } from '@gensvc/shared';
import { accountDecider, emailClaimDecider, normalizeEmail, validEmail } from '../../domain/account';
import { apiKeyDecider } from '../../domain/api-key';
import { formatCredential, hashSecret, idBody } from '../../domain/credentials';
import { PasswordHasher } from '../../infrastructure/password-hasher';

export interface CreatedAccount {
  readonly accountId: string;
  readonly keyId: string;
  /** Shown once; only its hash is stored. */
  readonly apiKey: string;
  /** Global position of the last event written (wait for it before reading projections). */
  readonly position: bigint;
}

export interface IssuedApiKey {
  readonly keyId: string;
  readonly apiKey: string;
  readonly position: bigint;
}

export const accountStream = (accountId: string) => streamName('account', accountId);
export const apiKeyStream = (keyId: string) => streamName('apikey', keyId);
export const emailStream = (email: string) => streamName('accountemail', createHash('sha256').update(normalizeEmail(email)).digest('hex'));

/** Accounts and API keys: the commands the admin CLI (and tests) run. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly events: EventStore,
    private readonly clock: Clock,
    private readonly passwords: PasswordHasher,
  ) {}

  /** Opens an account (optionally with an email + password login) and issues its first API key. */
  async createAccount(input: { name: string; email?: string; password?: string }): Promise<CreatedAccount> {
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
      await handleCommand(this.events, emailStream(email), emailClaimDecider, { type: 'ClaimEmail', data: { email, account_id: accountId }, metadata: { now: this.clock.now() } });
    }
    await handleCommand(this.events, accountStream(accountId), accountDecider, { type: 'OpenAccount', data: { account_id: accountId, name, email, password_hash: passwordHash }, metadata: { now: this.clock.now() } });
    const key = await this.issueKey(accountId);
    return { accountId, ...key };
  }

  /** Issues another API key for an existing, active account. */
  async issueApiKey(accountId: string): Promise<IssuedApiKey> {
    const { state } = await loadAggregate(this.events, accountStream(String(accountId)), accountDecider);
    if (state.status !== 'active') throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    return this.issueKey(accountId);
  }

  /** Revokes a key; repeating it is harmless. */
  async revokeApiKey(keyId: string): Promise<{ keyId: string; revoked: true; position?: bigint }> {
    const result = await handleCommand(this.events, apiKeyStream(String(keyId)), apiKeyDecider, { type: 'RevokeApiKey', data: { key_id: keyId }, metadata: { now: this.clock.now() } });
    return { keyId, revoked: true, position: result.position };
  }

  /** Closes an account: every key, OAuth grant and upload token of it stops working. */
  async closeAccount(accountId: string): Promise<{ position?: bigint }> {
    const result = await handleCommand(this.events, accountStream(accountId), accountDecider, { type: 'CloseAccount', data: {}, metadata: { now: this.clock.now() } });
    return { position: result.position };
  }

  /** Name and email of an active account, or null. */
  async describe(accountId: string): Promise<{ name: string; email: string | null } | null> {
    const { state } = await loadAggregate(this.events, accountStream(accountId), accountDecider);
    return state.status === 'active' ? { name: state.name, email: state.email } : null;
  }

  /** Account login for the consent page: the account id, or null (same answer and cost for every failure). */
  async verifyLogin(email: string, password: string): Promise<string | null> {
    const normalized = normalizeEmail(String(email ?? ''));
    const claim = validEmail(normalized) ? await loadAggregate(this.events, emailStream(normalized), emailClaimDecider) : null;
    const accountId = claim?.state.accountId ?? null;
    const account = accountId ? (await loadAggregate(this.events, accountStream(accountId), accountDecider)).state : null;
    const stored = account && account.status === 'active' ? account.passwordHash : null;
    const ok = await this.passwords.verify(String(password ?? ''), stored);
    return ok && accountId ? accountId : null;
  }

  private async issueKey(accountId: string): Promise<IssuedApiKey> {
    const keyId = newId('key');
    const apiKey = formatCredential('gsk', idBody(keyId), randomBytes(32).toString('base64url'));
    const result = await handleCommand(this.events, apiKeyStream(keyId), apiKeyDecider, { type: 'IssueApiKey', data: { key_id: keyId, account_id: accountId, secret_hash: hashSecret(apiKey) }, metadata: { now: this.clock.now() } });
    return { keyId, apiKey, position: result.position! };
  }
}
