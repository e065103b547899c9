export * from './contracts';
export { WalletModule } from './wallet.module';
