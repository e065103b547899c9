import { AppError } from '@gensvc/kernel';
import { InMemoryEventStore } from '@gensvc/event-sourcing/testing/in-memory-event-store';
import { WalletStream } from '../wallet-stream';
import { CaptureFundsHandler, type CaptureFundsCommand } from './capture-funds.handler';

describe('CaptureFundsHandler', () => {
  let events: InMemoryEventStore;
  let wallets: WalletStream;
  let handler: CaptureFundsHandler;
  const metadata = { now: new Date('2026-03-01T10:00:00.000Z') };
  const capture = (id: string, amount: bigint): CaptureFundsCommand => ({ type: 'CaptureFunds', data: { account_id: 'acc_1', reservation_id: id, amount }, metadata });

  beforeEach(async () => {
    events = new InMemoryEventStore();
    wallets = new WalletStream(events);
    handler = new CaptureFundsHandler(wallets);
    await wallets.handle('acc_1', { type: 'Credit', data: { account_id: 'acc_1', amount: 1_000_000n, reason: null }, metadata });
    await wallets.handle('acc_1', { type: 'Reserve', data: { account_id: 'acc_1', reservation_id: 'task_a', task_id: 'task_a', amount: 500_000n }, metadata });
  });
  afterEach(() => events.close());

  it('charges the amount, releases the rest, and a repeat answers the same outcome without a new event', async () => {
    const first = await handler.execute(capture('task_a', 200_000n));
    expect(first).toEqual({ charged: 200_000n, released: 300_000n, position: expect.any(BigInt) });
    expect(await handler.execute(capture('task_a', 200_000n))).toEqual({ charged: 200_000n, released: 300_000n, position: undefined });
    expect((await wallets.load('acc_1')).available).toBe(800_000n);
  });

  it('refuses a reservation that does not exist (NOT_FOUND)', async () => {
    const err = await handler.execute(capture('task_x', 1n)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('NOT_FOUND');
  });
});
