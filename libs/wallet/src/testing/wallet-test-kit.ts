import type { Clock, EventStore } from '@gensvc/shared';
import type { WalletCommands } from '../contracts/wallet-commands';
import { WalletService } from '../application/wallet-stream';

/** The real wallet command side over a given event store, for other contexts' tests (no Nest). */
export function createWalletForTests(events: EventStore, clock: Clock): WalletCommands {
  return new WalletService(events, clock);
}

/** The wallet decider and its events, for cross-aggregate property tests. */
export { walletDecider, type WalletEvent, type WalletState, type WalletCommand } from '../domain/wallet';
