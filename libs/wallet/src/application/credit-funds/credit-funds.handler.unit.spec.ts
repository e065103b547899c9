import { AppError, streamName } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { WALLET_STREAM } from '../../domain/wallet';
import { WalletStream } from '../wallet-stream';
import { CreditFundsHandler, type CreditFundsCommand } from './credit-funds.handler';

describe('CreditFundsHandler', () => {
  let events: InMemoryEventStore;
  let handler: CreditFundsHandler;
  const now = new Date('2026-03-01T10:00:00.000Z');
  const credit = (amount: string, reason: string | null = null): CreditFundsCommand => ({ type: 'CreditFunds', data: { account_id: 'acc_1', amount, reason }, metadata: { now } });

  beforeEach(() => {
    events = new InMemoryEventStore();
    handler = new CreditFundsHandler(new WalletStream(events));
  });
  afterEach(() => events.close());

  it('records FundsCredited and answers the wallet after it', async () => {
    await handler.execute(credit('10.5'));
    expect(await handler.execute(credit('0.000001', 'bonus'))).toEqual({ currency: 'CNY', balance: '10.500001', reserved: '0.000000', available: '10.500001' });
    const stored = await events.readStream(streamName(WALLET_STREAM, 'acc_1'));
    expect(stored.map((e) => [e.type, e.data])).toEqual([
      ['FundsCredited', { account_id: 'acc_1', amount: '10.500000', reason: null, at: now.toISOString() }],
      ['FundsCredited', { account_id: 'acc_1', amount: '0.000001', reason: 'bonus', at: now.toISOString() }],
    ]);
  });

  it.each(['-1', '1.0000001', 'ten', '', '0'])('refuses the amount %j with VALIDATION_ERROR and records nothing', async (amount) => {
    const err = await handler.execute(credit(amount)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).code, (err as AppError).message]).toEqual(['VALIDATION_ERROR', expect.stringContaining('amount')]);
    expect(await events.readStream(streamName(WALLET_STREAM, 'acc_1'))).toEqual([]);
  });
});
