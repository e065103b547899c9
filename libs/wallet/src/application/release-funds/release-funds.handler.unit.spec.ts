import { streamName } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { WALLET_STREAM } from '../../domain/wallet';
import { WalletStream } from '../wallet-stream';
import { ReleaseFundsHandler, type ReleaseFundsCommand } from './release-funds.handler';

describe('ReleaseFundsHandler', () => {
  let events: InMemoryEventStore;
  let wallets: WalletStream;
  let handler: ReleaseFundsHandler;
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  const release = (id: string): ReleaseFundsCommand => ({ type: 'ReleaseFunds', data: { account_id: 'acc_1', reservation_id: id }, metadata });

  beforeEach(async () => {
    events = new InMemoryEventStore();
    wallets = new WalletStream(events);
    handler = new ReleaseFundsHandler(wallets);
    await wallets.handle('acc_1', { type: 'Credit', data: { account_id: 'acc_1', amount: 1_000_000n, reason: null }, metadata });
    await wallets.handle('acc_1', { type: 'Reserve', data: { account_id: 'acc_1', reservation_id: 'task_a', task_id: 'task_a', amount: 500_000n }, metadata });
  });
  afterEach(() => events.close());

  it('returns the whole reservation; a repeat answers the same outcome', async () => {
    expect(await handler.execute(release('task_a'))).toEqual({ charged: 0n, released: 500_000n, position: expect.any(BigInt) });
    expect(await handler.execute(release('task_a'))).toEqual({ charged: 0n, released: 500_000n, position: undefined });
    expect((await wallets.load('acc_1')).available).toBe(1_000_000n);
  });

  it('voids an id never reserved: nothing moves, and the id can no longer be reserved', async () => {
    expect(await handler.execute(release('task_b'))).toEqual({ charged: 0n, released: 0n, position: expect.any(BigInt) });
    const types = (await events.readStream(streamName(WALLET_STREAM, 'acc_1'))).map((e) => e.type);
    expect(types).toEqual(['FundsCredited', 'FundsReserved', 'FundsReservationVoided']);
    await expect(wallets.handle('acc_1', { type: 'Reserve', data: { account_id: 'acc_1', reservation_id: 'task_b', task_id: 'task_b', amount: 1n }, metadata })).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
