/** The wallet's decider for other contexts' domain specs (pure: loads the kernel only). */
export { walletDecider, type WalletEvent, type WalletState, type WalletCommand } from '../domain/wallet';
