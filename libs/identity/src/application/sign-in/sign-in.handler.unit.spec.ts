import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { ScryptPasswordHasher } from '../../infrastructure/password-hasher';
import { CloseAccountHandler } from '../close-account/close-account.handler';
import { CreateAccountHandler } from '../create-account/create-account.handler';
import { CreateApiKeyHandler } from '../create-api-key/create-api-key.handler';
import { SignInHandler } from './sign-in.handler';

describe('SignInHandler', () => {
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  const passwords = new ScryptPasswordHasher({ N: 2 ** 10, r: 8, p: 1 });
  let events: InMemoryEventStore;
  let handler: SignInHandler;
  let accountId: string;

  beforeEach(async () => {
    events = new InMemoryEventStore();
    handler = new SignInHandler(events, passwords);
    const created = await new CreateAccountHandler(events, passwords, new CreateApiKeyHandler(events)).execute({
      type: 'CreateAccount',
      data: { name: 'Ann', email: 'ann@example.com', password: 'correct horse battery' },
      metadata,
    });
    accountId = created.accountId;
  });
  afterEach(() => events.close());

  it('answers the account for its email (any case) and password', async () => {
    expect(await handler.execute({ email: 'Ann@Example.com', password: 'correct horse battery' })).toBe(accountId);
  });

  it('answers null for a wrong password, an unknown or malformed email, and a closed account', async () => {
    expect(await handler.execute({ email: 'ann@example.com', password: 'wrong horse battery' })).toBeNull();
    expect(await handler.execute({ email: 'bob@example.com', password: 'correct horse battery' })).toBeNull();
    expect(await handler.execute({ email: 'no email', password: 'correct horse battery' })).toBeNull();
    await new CloseAccountHandler(events).execute({ type: 'CloseAccount', data: { account_id: accountId }, metadata });
    expect(await handler.execute({ email: 'ann@example.com', password: 'correct horse battery' })).toBeNull();
  });
});
