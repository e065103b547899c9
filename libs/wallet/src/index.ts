export * from './contracts';
export { WalletModule } from './wallet.module';

import { WalletProjection } from './application/get-wallet/wallet.projection';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const WALLET_PROJECTIONS = [WalletProjection] as const;
