export * from './contracts/wallet-commands';
export { WalletModule } from './wallet.module';
