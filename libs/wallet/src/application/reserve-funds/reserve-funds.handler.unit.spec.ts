import { streamName } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { WALLET_STREAM } from '../../domain/wallet';
import { WalletStream } from '../wallet-stream';
import { ReserveFundsHandler, type ReserveFundsCommand } from './reserve-funds.handler';

describe('ReserveFundsHandler', () => {
  let events: InMemoryEventStore;
  let wallets: WalletStream;
  let handler: ReserveFundsHandler;
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  const reserve = (id: string, amount: bigint): ReserveFundsCommand => ({ type: 'ReserveFunds', data: { account_id: 'acc_1', reservation_id: id, task_id: id, amount }, metadata });
  const types = async () => (await events.readStream(streamName(WALLET_STREAM, 'acc_1'))).map((e) => e.type);

  beforeEach(async () => {
    events = new InMemoryEventStore();
    wallets = new WalletStream(events);
    handler = new ReserveFundsHandler(wallets);
    await wallets.handle('acc_1', { type: 'Credit', data: { account_id: 'acc_1', amount: 1_000_000n, reason: null }, metadata });
  });
  afterEach(() => events.close());

  it('reserves once per id: a repeat answers reserved and appends nothing', async () => {
    const first = await handler.execute(reserve('task_a', 600_000n));
    expect(first).toEqual({ reserved: true, position: expect.any(BigInt) });
    expect(await handler.execute(reserve('task_a', 600_000n))).toEqual({ reserved: true, position: undefined });
    expect(await types()).toEqual(['FundsCredited', 'FundsReserved']);
  });

  it('answers the refusal (INSUFFICIENT_FUNDS) instead of throwing, with nothing reserved', async () => {
    const answer = await handler.execute(reserve('task_b', 1_000_001n));
    expect(answer).toEqual({ reserved: false, refusal: { code: 'INSUFFICIENT_FUNDS', message: expect.any(String) } });
    expect(await types()).toEqual(['FundsCredited']);
  });
});
