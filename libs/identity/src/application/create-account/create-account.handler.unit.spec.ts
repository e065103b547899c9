import { AppError } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { secretMatches } from '../../domain/credentials';
import { ScryptPasswordHasher } from '../../infrastructure/password-hasher';
import { CreateApiKeyHandler } from '../create-api-key/create-api-key.handler';
import { CreateAccountHandler, type CreateAccountCommand } from './create-account.handler';

describe('CreateAccountHandler', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  // Cheap scrypt parameters: these tests are about the use case, not the hash's cost.
  const passwords = new ScryptPasswordHasher({ N: 2 ** 10, r: 8, p: 1 });
  let events: InMemoryEventStore;
  let handler: CreateAccountHandler;
  const create = (data: CreateAccountCommand['data']): CreateAccountCommand => ({ type: 'CreateAccount', data, metadata: { now } });
  const stored = async () => (await events.readAll()).map((e) => [e.streamName.split('-')[0], e.type]);
  const refusal = async (data: CreateAccountCommand['data']): Promise<AppError> => {
    const err = await handler.execute(create(data)).catch((e: unknown) => e);
    if (!(err instanceof AppError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return err;
  };

  beforeEach(() => {
    events = new InMemoryEventStore();
    handler = new CreateAccountHandler(events, passwords, new CreateApiKeyHandler(events));
  });
  afterEach(() => events.close());

  it('opens the account and issues its first key, shown once and stored only as a hash', async () => {
    const created = await handler.execute(create({ name: '  Acme  ' }));
    expect(created).toEqual({ accountId: expect.stringMatching(/^acc_/), keyId: expect.stringMatching(/^key_/), apiKey: expect.stringMatching(/^gsk_/), position: expect.any(BigInt) });
    expect(await stored()).toEqual([
      ['account', 'AccountOpened'],
      ['apikey', 'ApiKeyIssued'],
    ]);
    const [opened, issued] = await events.readAll();
    expect(opened.data).toEqual({ account_id: created.accountId, name: 'Acme', email: null, password_hash: null, opened_at: now.toISOString() });
    const secretHash = (issued.data as { secret_hash: string }).secret_hash;
    expect(JSON.stringify(issued.data)).not.toContain(created.apiKey);
    expect(secretMatches(created.apiKey, secretHash)).toBe(true);
  });

  it('with an email and password: claims the email first (normalized) and stores a password hash', async () => {
    const created = await handler.execute(create({ name: 'Ann', email: ' Ann@Example.COM ', password: 'correct horse battery' }));
    expect(await stored()).toEqual([
      ['accountemail', 'AccountEmailClaimed'],
      ['account', 'AccountOpened'],
      ['apikey', 'ApiKeyIssued'],
    ]);
    const opened = (await events.readAll())[1].data as { email: string; password_hash: string };
    expect(opened.email).toBe('ann@example.com');
    expect(await passwords.verify('correct horse battery', opened.password_hash)).toBe(true);
    expect(created.accountId).toMatch(/^acc_/);
  });

  it('refuses one email for two accounts (CONFLICT), the second account never opened', async () => {
    await handler.execute(create({ name: 'Ann', email: 'ann@example.com', password: 'correct horse battery' }));
    const err = await refusal({ name: 'Other', email: 'ANN@example.com', password: 'another password' });
    expect([err.code, err.message]).toEqual(['CONFLICT', 'email is already used by another account']);
    expect((await stored()).filter(([, type]) => type === 'AccountOpened')).toHaveLength(1);
  });

  it('refuses bad input with VALIDATION_ERROR and records nothing', async () => {
    const cases: [CreateAccountCommand['data'], string][] = [
      [{ name: '   ' }, 'name must be 1 to 200 characters'],
      [{ name: 'x'.repeat(201) }, 'name must be 1 to 200 characters'],
      [{ name: 'Ann', email: 'ann@example.com' }, 'email and password must be given together'],
      [{ name: 'Ann', password: 'correct horse battery' }, 'email and password must be given together'],
      [{ name: 'Ann', email: 'not-an-email', password: 'correct horse battery' }, 'email is not a valid address'],
      [{ name: 'Ann', email: 'ann@example.com', password: 'short' }, 'password must be 8 to 1024 characters'],
    ];
    for (const [data, message] of cases) expect(await refusal(data)).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(await stored()).toEqual([]);
  });
});
