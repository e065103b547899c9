export * from './contracts/supplier-gateway';
