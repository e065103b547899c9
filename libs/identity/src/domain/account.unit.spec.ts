import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
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
      .when({ type: 'OpenAccount', data: { account_id: 'acc_1', name: '  Ann ', email: 'ann@example.com', password_hash: 'scrypt$x' }, metadata: { now } })
      .then([opened]);
  });

  it('opens an account without a login', () => {
    spec
      .given([])
      .when({ type: 'OpenAccount', data: { account_id: 'acc_2', name: 'Bot', email: null, password_hash: null }, metadata: { now } })
      .then([{ type: 'AccountOpened', data: { account_id: 'acc_2', name: 'Bot', email: null, password_hash: null, opened_at: now.toISOString() } }]);
  });

  it('refuses a second opening, an empty name, an email without password and a bad email', () => {
    spec.given([opened]).when({ type: 'OpenAccount', data: { account_id: 'acc_1', name: 'Ann', email: null, password_hash: null }, metadata: { now } }).thenThrows('CONFLICT');
    spec.given([]).when({ type: 'OpenAccount', data: { account_id: 'acc_1', name: '   ', email: null, password_hash: null }, metadata: { now } }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ type: 'OpenAccount', data: { account_id: 'acc_1', name: 'A', email: 'a@b.cd', password_hash: null }, metadata: { now } }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ type: 'OpenAccount', data: { account_id: 'acc_1', name: 'A', email: 'not-an-email', password_hash: 'h' }, metadata: { now } }).thenThrows('VALIDATION_ERROR');
  });

  it('refuses a name with control or bidirectional formatting characters (printed by clients, it would drive their terminal)', () => {
    for (const name of ['Ann\u001b[31m', 'A\u0000nn', 'Ann\u202Egnp.exe', 'A\u0085nn', 'An\nn', 'Ann\u2067', 'Ann\u007f']) {
      spec.given([]).when({ type: 'OpenAccount', data: { account_id: 'acc_1', name, email: null, password_hash: null }, metadata: { now } }).thenThrows('VALIDATION_ERROR');
    }
  });

  it('closes once; closing again is harmless; an unknown account is NOT_FOUND', () => {
    spec.given([opened]).when({ type: 'CloseAccount', data: {}, metadata: { now } }).then([{ type: 'AccountClosed', data: { account_id: 'acc_1', closed_at: now.toISOString() } }]);
    spec.given([opened, { type: 'AccountClosed', data: { account_id: 'acc_1', closed_at: now.toISOString() } }]).when({ type: 'CloseAccount', data: {}, metadata: { now } }).then([]);
    spec.given([]).when({ type: 'CloseAccount', data: {}, metadata: { now } }).thenThrows('NOT_FOUND');
  });
});

describe('email claim decider', () => {
  const claims = DeciderSpecification.for(emailClaimDecider);
  const claimed = { type: 'AccountEmailClaimed' as const, data: { email: 'a@b.cd', account_id: 'acc_1' } };

  it('gives an email to the first account only', () => {
    claims.given([]).when({ type: 'ClaimEmail', data: { email: 'a@b.cd', account_id: 'acc_1' }, metadata: { now } }).then([claimed]);
    claims.given([claimed]).when({ type: 'ClaimEmail', data: { email: 'a@b.cd', account_id: 'acc_1' }, metadata: { now } }).then([]);
    claims.given([claimed]).when({ type: 'ClaimEmail', data: { email: 'a@b.cd', account_id: 'acc_2' }, metadata: { now } }).thenThrows('CONFLICT');
  });
});
