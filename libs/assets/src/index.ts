export * from './contracts/asset-registry';
