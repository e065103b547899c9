/** The wallet context's contracts: what other libraries may import (Nest-free). */
export * from './wallet-commands';
export { WALLET_STREAM, WALLET_EVENT_TYPES, type WalletEvent } from '../domain/wallet';
