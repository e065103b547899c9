export * from './contracts/wallet-commands';
