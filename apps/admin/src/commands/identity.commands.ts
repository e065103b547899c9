import { AppError } from '@gensvc/kernel';
import type { AdminUseCases } from '../admin-use-cases';
import { UsageError, requireFlag, type AdminCommand, type Flags } from '../command';

const optional = (flags: Flags, name: string): string | undefined => {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} needs a value`);
  return v;
};

const now = (use: AdminUseCases): { now: Date } => ({ now: use.clock.now() });

const accountCreate: AdminCommand = {
  words: ['account', 'create'],
  usage: 'account create --name NAME [--credit AMOUNT] [--email EMAIL --password PASSWORD]',
  async run(use: AdminUseCases, flags: Flags) {
    const name = requireFlag(flags, 'name');
    const credit = optional(flags, 'credit');
    const email = optional(flags, 'email');
    const password = optional(flags, 'password');
    if ((email === undefined) !== (password === undefined)) throw new UsageError('--email and --password go together');
    if (credit !== undefined && !/^\d{1,12}(\.\d{1,6})?$/.test(credit)) throw new AppError('VALIDATION_ERROR', '--credit must be a positive CNY amount like 100.00');
    const created = await use.createAccount.execute({ type: 'CreateAccount', data: { name, email, password }, metadata: now(use) });
    if (credit !== undefined) await use.wallet.credit(created.accountId, credit, 'initial credit');
    return { account_id: created.accountId, api_key: created.apiKey };
  },
};

const apiKeyCreate: AdminCommand = {
  words: ['api-key', 'create'],
  usage: 'api-key create --account ID',
  async run(use, flags) {
    const issued = await use.createApiKey.execute({ type: 'CreateApiKey', data: { account_id: requireFlag(flags, 'account') }, metadata: now(use) });
    return { key_id: issued.keyId, api_key: issued.apiKey };
  },
};

const apiKeyRevoke: AdminCommand = {
  words: ['api-key', 'revoke'],
  usage: 'api-key revoke --key-id ID',
  async run(use, flags) {
    const revoked = await use.revokeApiKey.execute({ type: 'RevokeApiKey', data: { key_id: requireFlag(flags, 'key-id') }, metadata: now(use) });
    return { key_id: revoked.keyId, revoked: true };
  },
};

const oauthClientCreate: AdminCommand = {
  words: ['oauth-client', 'create'],
  usage: 'oauth-client create --name NAME --redirect-uri URI [--public]',
  async run(use, flags) {
    const isPublic = flags.public === true || flags.public === 'true';
    if (flags.public !== undefined && typeof flags.public !== 'boolean' && flags.public !== 'true') throw new UsageError('--public takes no value');
    const created = await use.registerOAuthClient.execute({
      type: 'RegisterOAuthClient',
      data: { name: requireFlag(flags, 'name'), redirect_uri: requireFlag(flags, 'redirect-uri'), public: isPublic },
      metadata: now(use),
    });
    return { client_id: created.clientId, client_secret: created.clientSecret };
  },
};

/** Accounts, API keys and OAuth clients (CONTRACT §1). */
export const IDENTITY_COMMANDS: AdminCommand[] = [accountCreate, apiKeyCreate, apiKeyRevoke, oauthClientCreate];
