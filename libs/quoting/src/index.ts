export * from './contracts';
export { QuotingModule } from './quoting.module';
