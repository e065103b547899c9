import fc from 'fast-check';
import { AppError, Money, type Decider, type DomainEvent } from '@gensvc/kernel';
import { walletDecider, type WalletState } from '@gensvc/wallet/testing/wallet-decider';
import { quoteDecider, type QuoteState, type QuoteTerms } from '@gensvc/quoting/testing/quote-decider';
import { taskDecider, type TaskCommand, type TaskCreatedEventData, type TaskState } from './task';

/**
 * The money path across the three aggregates, as the application runs it (lock the quote,
 * reserve, create; reject and roll back on a refusal; settle on completion), over random
 * sequences of credit / quote / create / start / succeed / fail / cancel / settle / time.
 * After every step: nothing negative, balance = available + reserved, credits = balance +
 * charges, reserved = the max_amount of every unsettled task, every task settled once with
 * the right amount, every quote locked by at most one task.
 */
type Op =
  | { kind: 'credit'; amount: bigint }
  | { kind: 'quote'; amount: bigint }
  | { kind: 'create'; quote: number }
  | { kind: 'start' | 'succeed' | 'fail' | 'requestCancel' | 'confirmCancel' | 'settle'; task: number }
  | { kind: 'wait'; minutes: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('credit' as const), amount: fc.bigInt({ min: 1n, max: 3_000_000n }) }),
  fc.record({ kind: fc.constant('quote' as const), amount: fc.bigInt({ min: 1n, max: 2_000_000n }) }),
  fc.record({ kind: fc.constant('create' as const), quote: fc.nat(20) }),
  fc.record({ kind: fc.constantFrom('start' as const, 'succeed' as const, 'fail' as const, 'requestCancel' as const, 'confirmCancel' as const, 'settle' as const), task: fc.nat(20) }),
  fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 10 }) }),
);

function run<S, C, E extends DomainEvent>(d: Decider<S, C, E>, state: S, command: C): { state: S; error?: AppError } {
  try {
    const events = d.decide(command, state);
    return { state: events.reduce(d.evolve, state) };
  } catch (err) {
    if (err instanceof AppError) return { state, error: err };
    throw err;
  }
}

class MoneyPath {
  now = new Date('2026-01-01T00:00:00.000Z');
  wallet: WalletState = walletDecider.initialState();
  quotes: { id: string; state: QuoteState }[] = [];
  tasks: { id: string; state: TaskState }[] = [];
  credited = 0n;
  private n = 0;
  readonly accountId = 'acc_p';

  apply(o: Op): void {
    switch (o.kind) {
      case 'credit':
        this.wallet = run(walletDecider, this.wallet, { type: 'Credit', data: { account_id: this.accountId, amount: o.amount }, metadata: { now: this.now } }).state;
        this.credited += o.amount;
        return;
      case 'quote': {
        const id = `qt_${++this.n}`;
        const terms = quoteTerms(id, this.accountId, o.amount, this.now);
        this.quotes.push({ id, state: run(quoteDecider, quoteDecider.initialState(), { type: 'IssueQuote', data: terms, metadata: { now: this.now } }).state });
        return;
      }
      case 'create':
        return this.create(o.quote);
      case 'wait':
        this.now = new Date(this.now.getTime() + o.minutes * 60_000);
        return;
      default:
        return this.step(o.kind, o.task);
    }
  }

  /** CreateTaskHandler's protocol, in memory. */
  private create(index: number): void {
    const q = this.quotes[index % Math.max(1, this.quotes.length)];
    if (!q) return;
    const taskId = `task_${++this.n}`;
    const accepted = run(quoteDecider, q.state, { type: 'AcceptQuote', data: { quote_id: q.id, account_id: this.accountId, task_id: taskId, available_models: [q.state.status === 'none' ? '' : q.state.terms.model] }, metadata: { now: this.now } });
    let refusal = accepted.error;
    q.state = accepted.state;
    if (!refusal && q.state.status !== 'none') {
      const amount = Money.parse(q.state.terms.max_amount);
      const reserved = run(walletDecider, this.wallet, { type: 'Reserve', data: { account_id: this.accountId, reservation_id: taskId, task_id: taskId, amount }, metadata: { now: this.now } });
      refusal = reserved.error;
      this.wallet = reserved.state;
      if (!refusal) {
        const data = createdData(taskId, q.state.terms, this.now);
        this.tasks.push({ id: taskId, state: run(taskDecider, taskDecider.initialState(), { type: 'CreateTask', data, metadata: { now: this.now } }).state });
        return;
      }
    }
    // rejected: give back the lock and the reservation (tombstones), as the handler does
    q.state = run(quoteDecider, q.state, { type: 'ReleaseQuote', data: { quote_id: q.id, task_id: taskId }, metadata: { now: this.now } }).state;
    this.wallet = run(walletDecider, this.wallet, { type: 'Release', data: { account_id: this.accountId, reservation_id: taskId }, metadata: { now: this.now } }).state;
  }

  private step(kind: 'start' | 'succeed' | 'fail' | 'requestCancel' | 'confirmCancel' | 'settle', index: number): void {
    const t = this.tasks[index % Math.max(1, this.tasks.length)];
    if (!t) return;
    const now = this.now;
    const metadata = { now };
    const data = { task_id: t.id };
    const commands: Record<typeof kind, TaskCommand | null> = {
      start: { type: 'StartTask', data, metadata },
      succeed: { type: 'SucceedTask', data: { ...data, output: { asset_ids: [] } }, metadata },
      fail: { type: 'FailTask', data: { ...data, error: { code: 'SUPPLIER_ERROR', message: 'x' } }, metadata },
      requestCancel: { type: 'RequestCancellation', data, metadata },
      confirmCancel: { type: 'ConfirmCancellation', data, metadata },
      settle: null,
    };
    const command = commands[kind];
    if (command) {
      t.state = run(taskDecider, t.state, command).state;
      return;
    }
    // TaskSettlement.settle
    if (t.state.kind !== 'task') return;
    const task = t.state.task;
    if (!['succeeded', 'failed', 'canceled'].includes(task.status) || task.settlement_status !== 'reserved') return;
    const succeeded = task.status === 'succeeded';
    const before = this.wallet;
    this.wallet = run(
      walletDecider,
      this.wallet,
      succeeded
        ? { type: 'Capture', data: { account_id: this.accountId, reservation_id: t.id, amount: Money.parse(task.estimated_amount) }, metadata: { now } }
        : { type: 'Release', data: { account_id: this.accountId, reservation_id: t.id }, metadata: { now } },
    ).state;
    const r = this.wallet.reservations.get(t.id);
    expect(r?.status).toBe('closed');
    const charged = before.spent === this.wallet.spent ? 0n : this.wallet.spent - before.spent;
    t.state = run(taskDecider, t.state, {
      type: 'SettleTask',
      data: {
        task_id: t.id,
        settlement_status: succeeded ? 'settled' : 'released',
        charged_amount: Money.format(charged),
        released_amount: Money.format(Money.parse(task.max_amount) - charged),
      },
      metadata,
    }).state;
  }

  check(): void {
    const w = this.wallet;
    expect(w.available >= 0n && w.reserved >= 0n && w.spent >= 0n).toBe(true);
    expect(this.credited).toBe(w.available + w.reserved + w.spent);
    let reserved = 0n;
    let charged = 0n;
    for (const { id, state } of this.tasks) {
      if (state.kind !== 'task') continue;
      const t = state.task;
      if (t.settlement_status === 'reserved') reserved += Money.parse(t.max_amount);
      else {
        const c = Money.parse(t.charged_amount!);
        charged += c;
        expect(c <= Money.parse(t.max_amount)).toBe(true);
        expect(c).toBe(t.status === 'succeeded' ? Money.parse(t.estimated_amount) : 0n);
        expect(c + Money.parse(t.released_amount!)).toBe(Money.parse(t.max_amount));
      }
      const q = this.quotes.find((x) => x.id === t.quote_id)!;
      expect(q.state.status === 'accepted' && q.state.acceptedBy).toBe(id);
    }
    expect(w.reserved).toBe(reserved);
    expect(w.spent).toBe(charged);
  }
}

function quoteTerms(id: string, accountId: string, amount: bigint, now: Date): QuoteTerms {
  return {
    quote_id: id,
    account_id: accountId,
    connection_id: 'key_p',
    model: 'm',
    resolved_model: 'm-1',
    capability: 'c',
    modality: 'text',
    supplier: 'local',
    params: {},
    asset_ids: [],
    voice_id: null,
    currency: 'CNY',
    pricing_mode: 'fixed',
    price_version: 'v',
    unit: 'request',
    unit_price: Money.format(amount),
    quantity: 1,
    estimated_amount: Money.format(amount),
    max_amount: Money.format(amount),
    issued_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 15 * 60_000).toISOString(),
  };
}

function createdData(taskId: string, q: QuoteTerms, now: Date): TaskCreatedEventData {
  return {
    task_id: taskId,
    bill_id: `bill_${taskId}`,
    account_id: q.account_id,
    connection_id: q.connection_id,
    quote_id: q.quote_id,
    model: q.model,
    resolved_model: q.resolved_model,
    capability: q.capability,
    modality: q.modality,
    title: null,
    price_version: q.price_version,
    currency: 'CNY',
    estimated_amount: q.estimated_amount,
    max_amount: q.max_amount,
    params: {},
    asset_ids: [],
    voice_id: null,
    created_at: now.toISOString(),
  };
}

describe('the money path across quote, wallet and task (property-based)', () => {
  it('conserves money and never over-reserves, whatever the sequence', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const m = new MoneyPath();
        for (const o of ops) {
          m.apply(o);
          m.check();
        }
      }),
      { numRuns: 500 },
    );
  });

  it('settles every task once its outcome is known', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const m = new MoneyPath();
        for (const o of ops) m.apply(o);
        // finish everything: fail what still runs, then settle all
        for (let i = 0; i < m.tasks.length; i++) {
          m.apply({ kind: 'fail', task: i });
          m.apply({ kind: 'settle', task: i });
        }
        m.check();
        expect(m.wallet.reserved).toBe(0n);
        for (const { state } of m.tasks) expect(state.kind === 'task' && state.task.settlement_status !== 'reserved').toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
