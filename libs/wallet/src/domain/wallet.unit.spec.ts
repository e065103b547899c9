import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { Money, fold } from '@gensvc/kernel';
import { walletBalance, walletDecider, type WalletEvent } from './wallet';

const now = new Date('2026-01-01T00:00:00.000Z');
const at = now.toISOString();
const account_id = 'acc_1';
const spec = DeciderSpecification.for(walletDecider);

const credited = (amount: string): WalletEvent => ({ type: 'FundsCredited', data: { account_id, amount, reason: null, at } });
const reserved = (id: string, amount: string): WalletEvent => ({
  type: 'FundsReserved',
  data: { account_id, reservation_id: id, task_id: id, amount, at },
});

describe('wallet decider', () => {
  it('credits a positive amount', () => {
    spec.given([]).when({ type: 'Credit', data: { account_id, amount: Money.parse('10'), reason: 'welcome' }, metadata: { now } }).then([
      { type: 'FundsCredited', data: { account_id, amount: '10.000000', reason: 'welcome', at } },
    ]);
  });

  it('refuses a zero credit', () => {
    spec.given([]).when({ type: 'Credit', data: { account_id, amount: 0n }, metadata: { now } }).thenThrows('VALIDATION_ERROR');
  });

  it('reserves from available funds', () => {
    spec
      .given([credited('1.000000')])
      .when({ type: 'Reserve', data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: Money.parse('0.4') }, metadata: { now } })
      .then([reserved('task_a', '0.400000')]);
  });

  it('refuses a reservation above available funds and reserves nothing', () => {
    spec
      .given([credited('1.000000'), reserved('task_a', '0.800000')])
      .when({ type: 'Reserve', data: { account_id, reservation_id: 'task_b', task_id: 'task_b', amount: Money.parse('0.3') }, metadata: { now } })
      .thenThrows('INSUFFICIENT_FUNDS');
  });

  it('treats a repeated reservation of the same id and amount as done', () => {
    spec
      .given([credited('1.000000'), reserved('task_a', '0.800000')])
      .when({ type: 'Reserve', data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: Money.parse('0.8') }, metadata: { now } })
      .then([]);
  });

  it('never reserves a closed id again', () => {
    spec
      .given([credited('1.000000'), { type: 'FundsReservationVoided', data: { account_id, reservation_id: 'task_a', at } }])
      .when({ type: 'Reserve', data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: 1n }, metadata: { now } })
      .thenThrows('CONFLICT');
  });

  it('captures the charge and releases the rest in one event', () => {
    spec
      .given([credited('1.000000'), reserved('task_a', '0.800000')])
      .when({ type: 'Capture', data: { account_id, reservation_id: 'task_a', amount: Money.parse('0.5') }, metadata: { now } })
      .then([
        {
          type: 'FundsCaptured',
          data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: '0.500000', released_amount: '0.300000', at },
        },
      ]);
  });

  it('captures once: a repeat is a no-op, a release after it too', () => {
    const given = [
      credited('1.000000'),
      reserved('task_a', '0.800000'),
      {
        type: 'FundsCaptured',
        data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: '0.800000', released_amount: '0.000000', at },
      } as WalletEvent,
    ];
    spec.given(given).when({ type: 'Capture', data: { account_id, reservation_id: 'task_a', amount: Money.parse('0.8') }, metadata: { now } }).then([]);
    spec.given(given).when({ type: 'Release', data: { account_id, reservation_id: 'task_a' }, metadata: { now } }).then([]);
    spec.given(given).when({ type: 'Reserve', data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: 1n }, metadata: { now } }).thenThrows('CONFLICT');
  });

  it('never captures more than reserved', () => {
    spec
      .given([credited('1.000000'), reserved('task_a', '0.200000')])
      .when({ type: 'Capture', data: { account_id, reservation_id: 'task_a', amount: Money.parse('0.3') }, metadata: { now } })
      .thenThrows('VALIDATION_ERROR');
  });

  it('refuses to capture an unknown reservation', () => {
    spec.given([credited('1.000000')]).when({ type: 'Capture', data: { account_id, reservation_id: 'x', amount: 1n }, metadata: { now } }).thenThrows('NOT_FOUND');
  });

  it('releases a whole reservation, and voids an id never reserved', () => {
    spec
      .given([credited('1.000000'), reserved('task_a', '0.800000')])
      .when({ type: 'Release', data: { account_id, reservation_id: 'task_a' }, metadata: { now } })
      .then([{ type: 'FundsReleased', data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: '0.800000', at } }]);
    spec
      .given([credited('1.000000')])
      .when({ type: 'Release', data: { account_id, reservation_id: 'task_b' }, metadata: { now } })
      .then([{ type: 'FundsReservationVoided', data: { account_id, reservation_id: 'task_b', at } }]);
  });

  it('keeps balance = available + reserved through a settlement', () => {
    const state = fold(walletDecider, [
      credited('2.000000'),
      reserved('task_a', '0.800000'),
      {
        type: 'FundsCaptured',
        data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: '0.500000', released_amount: '0.300000', at },
      },
    ]);
    expect(Money.format(state.available)).toBe('1.500000');
    expect(state.reserved).toBe(0n);
    expect(state.spent).toBe(Money.parse('0.5'));
    expect(Money.format(walletBalance(state))).toBe('1.500000');
    expect(state.reservations.get('task_a')).toMatchObject({ status: 'closed', charged: Money.parse('0.5'), released: Money.parse('0.3') });
  });

  it('leaves earlier states unchanged when later events are folded (value semantics)', () => {
    const s1 = fold(walletDecider, [credited('2.000000'), reserved('task_a', '0.800000')]);
    const s2 = walletDecider.evolve(s1, { type: 'FundsReleased', data: { account_id, reservation_id: 'task_a', task_id: 'task_a', amount: '0.800000', at } });
    const s3 = walletDecider.evolve(s1, reserved('task_b', '0.100000'));
    expect(s1.reservations.get('task_a')?.status).toBe('open');
    expect(s1.reservations.get('task_b')).toBeUndefined();
    expect(s2.reservations.get('task_a')?.status).toBe('closed');
    expect(s2.reservations.get('task_b')).toBeUndefined();
    expect(s3.reservations.get('task_a')?.status).toBe('open');
    expect(s3.reservations.get('task_b')?.status).toBe('open');
    expect(s3.reserved).toBe(Money.parse('0.9'));
  });
});
