import type { Clock } from '@gensvc/kernel';
import type { EventStore } from '@gensvc/event-sourcing';
import type { WalletCommands } from '../contracts/wallet-commands';
import { CaptureFundsHandler } from '../application/capture-funds/capture-funds.handler';
import { CreditFundsHandler } from '../application/credit-funds/credit-funds.handler';
import { CurrentWalletHandler } from '../application/current-wallet/current-wallet.handler';
import { ReleaseFundsHandler } from '../application/release-funds/release-funds.handler';
import { ReserveFundsHandler } from '../application/reserve-funds/reserve-funds.handler';
import { WalletCommandsService } from '../application/wallet-commands/wallet-commands.service';
import { WalletStream } from '../application/wallet-stream';

/** The real wallet command side over a given event store, for other contexts' tests (no Nest). */
export function createWalletForTests(events: EventStore, clock: Clock): WalletCommands {
  const wallets = new WalletStream(events);
  return new WalletCommandsService(
    clock,
    new CreditFundsHandler(wallets),
    new CurrentWalletHandler(wallets),
    new ReserveFundsHandler(wallets),
    new CaptureFundsHandler(wallets),
    new ReleaseFundsHandler(wallets),
  );
}

/** The wallet decider and its events, for cross-aggregate property tests. */
