export * from './contracts/quote-book';
export { QuotingModule } from './quoting.module';
