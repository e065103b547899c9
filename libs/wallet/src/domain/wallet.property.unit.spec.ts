import fc from 'fast-check';
import { AppError, Money, type Micros } from '@gensvc/kernel';
import { walletBalance, walletDecider, type WalletCommand, type WalletEvent, type WalletState } from './wallet';

const now = new Date('2026-01-01T00:00:00.000Z');
const accountId = 'acc_p';
const ids = ['task_a', 'task_b', 'task_c', 'task_d', 'task_e', 'task_f'];

const amount = fc.bigInt({ min: 0n, max: 5_000_000n });
const id = fc.constantFrom(...ids);

const command: fc.Arbitrary<WalletCommand> = fc.oneof(
  amount.map((a): WalletCommand => ({ type: 'Credit', data: { account_id: accountId, amount: a }, metadata: { now } })),
  fc.tuple(id, amount).map(([r, a]): WalletCommand => ({ type: 'Reserve', data: { account_id: accountId, reservation_id: r, task_id: r, amount: a }, metadata: { now } })),
  fc.tuple(id, amount).map(([r, a]): WalletCommand => ({ type: 'Capture', data: { account_id: accountId, reservation_id: r, amount: a }, metadata: { now } })),
  id.map((r): WalletCommand => ({ type: 'Release', data: { account_id: accountId, reservation_id: r }, metadata: { now } })),
);

/** Runs commands through decide/evolve; refused commands change nothing. */
function run(commands: readonly WalletCommand[]): { state: WalletState; events: WalletEvent[] } {
  let state = walletDecider.initialState();
  const events: WalletEvent[] = [];
  for (const c of commands) {
    let produced: readonly WalletEvent[];
    try {
      produced = walletDecider.decide(c, state);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      continue;
    }
    for (const e of produced) {
      state = walletDecider.evolve(state, e);
      events.push(e);
      expectInvariants(state);
    }
  }
  return { state, events };
}

function expectInvariants(s: WalletState): void {
  expect(s.available >= 0n).toBe(true);
  expect(s.reserved >= 0n).toBe(true);
  expect(s.spent >= 0n).toBe(true);
  // balance = available + reserved, and money is conserved: credits = balance + charges
  expect(s.credited).toBe(walletBalance(s) + s.spent);
  let open: Micros = 0n;
  for (const [, r] of s.reservations.open()) open += r.amount;
  expect(s.reserved).toBe(open);
}

describe('wallet invariants (property-based)', () => {
  it('never goes negative, conserves money and keeps reserved = sum of open reservations', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
        const { state, events } = run(commands);
        expectInvariants(state);
        for (const e of events) if ('amount' in e.data) expect(e.data.amount).toMatch(/^\d+\.\d{6}$/);
      }),
      { numRuns: 400 },
    );
  });

  it('captures or releases each reservation at most once', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
        const { events } = run(commands);
        const reservedIds = events.filter((e) => e.type === 'FundsReserved').map((e) => (e.data as { reservation_id: string }).reservation_id);
        expect(new Set(reservedIds).size).toBe(reservedIds.length);
        const captured = events.filter((e) => e.type === 'FundsCaptured').map((e) => (e.data as { reservation_id: string }).reservation_id);
        expect(new Set(captured).size).toBe(captured.length);
        // each reservation closes at most once, and a close returns exactly what was reserved
        const closes = events.filter((e) => e.type === 'FundsCaptured' || e.type === 'FundsReleased');
        const closedIds = closes.map((e) => (e.data as { reservation_id: string }).reservation_id);
        expect(new Set(closedIds).size).toBe(closedIds.length);
        for (const e of closes) {
          const r = (e.data as { reservation_id: string }).reservation_id;
          const made = events.find((x) => x.type === 'FundsReserved' && x.data.reservation_id === r) as Extract<WalletEvent, { type: 'FundsReserved' }>;
          const out = e.type === 'FundsCaptured' ? Money.parse(e.data.amount) + Money.parse(e.data.released_amount) : Money.parse(e.data.amount);
          expect(out).toBe(Money.parse(made.data.amount));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never lets reservations exceed the credits, whatever their order', () => {
    fc.assert(
      fc.property(amount, fc.array(fc.tuple(id, amount), { maxLength: 20 }), (credit, reservations) => {
        const { state } = run([
          { type: 'Credit', data: { account_id: accountId, amount: credit + 1n }, metadata: { now } },
          ...reservations.map(([r, a]): WalletCommand => ({ type: 'Reserve', data: { account_id: accountId, reservation_id: r, task_id: r, amount: a }, metadata: { now } })),
        ]);
        expect(state.reserved <= credit + 1n).toBe(true);
      }),
    );
  });
});
