import { DeciderSpecification } from '@gensvc/shared/testing/decider-specification';
import { accountDecider, emailClaimDecider, type AccountEvent } from './account';

const now = new Date('2026-01-01T00:00:00.000Z');
const opened: AccountEvent = {
  type: 'AccountOpened',
  data: { account_id: 'acc_1', name: 'Ann', email: 'ann@example.com', password_hash: 'scrypt$x', opened_at: now.toISOString() },
};
const spec = DeciderSpecification.for(accountDecider);

describe('account decider', () => {
  it('opens an account with a trimmed name', () => {
    spec
      .given([])
      .when({ type: 'OpenAccount', accountId: 'acc_1', name: '  Ann ', email: 'ann@example.com', passwordHash: 'scrypt$x', now })
      .then([opened]);
  });

  it('opens an account without a login', () => {
    spec
      .given([])
      .when({ type: 'OpenAccount', accountId: 'acc_2', name: 'Bot', email: null, passwordHash: null, now })
      .then([{ type: 'AccountOpened', data: { account_id: 'acc_2', name: 'Bot', email: null, password_hash: null, opened_at: now.toISOString() } }]);
  });

  it('refuses a second opening, an empty name, an email without password and a bad email', () => {
    spec.given([opened]).when({ type: 'OpenAccount', accountId: 'acc_1', name: 'Ann', email: null, passwordHash: null, now }).thenThrows('CONFLICT');
    spec.given([]).when({ type: 'OpenAccount', accountId: 'acc_1', name: '   ', email: null, passwordHash: null, now }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ type: 'OpenAccount', accountId: 'acc_1', name: 'A', email: 'a@b.cd', passwordHash: null, now }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ type: 'OpenAccount', accountId: 'acc_1', name: 'A', email: 'not-an-email', passwordHash: 'h', now }).thenThrows('VALIDATION_ERROR');
  });

  it('closes once; closing again is harmless; an unknown account is NOT_FOUND', () => {
    spec.given([opened]).when({ type: 'CloseAccount', now }).then([{ type: 'AccountClosed', data: { account_id: 'acc_1', closed_at: now.toISOString() } }]);
    spec.given([opened, { type: 'AccountClosed', data: { account_id: 'acc_1', closed_at: now.toISOString() } }]).when({ type: 'CloseAccount', now }).then([]);
    spec.given([]).when({ type: 'CloseAccount', now }).thenThrows('NOT_FOUND');
  });
});

describe('email claim decider', () => {
  const claims = DeciderSpecification.for(emailClaimDecider);
  const claimed = { type: 'AccountEmailClaimed' as const, data: { email: 'a@b.cd', account_id: 'acc_1' } };

  it('gives an email to the first account only', () => {
    claims.given([]).when({ type: 'ClaimEmail', email: 'a@b.cd', accountId: 'acc_1' }).then([claimed]);
    claims.given([claimed]).when({ type: 'ClaimEmail', email: 'a@b.cd', accountId: 'acc_1' }).then([]);
    claims.given([claimed]).when({ type: 'ClaimEmail', email: 'a@b.cd', accountId: 'acc_2' }).thenThrows('CONFLICT');
  });
});
