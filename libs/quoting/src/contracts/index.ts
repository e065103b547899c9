/** The quoting context's contracts: what other libraries may import (Nest-free). */
export * from './quote-book';
export { QUOTE_STREAM, QUOTE_EVENT_TYPES, type QuoteEvent } from '../domain/quote';
