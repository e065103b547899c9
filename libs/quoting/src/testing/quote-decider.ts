/** The quote's decider for other contexts' domain specs (pure: loads the kernel only). */
export { quoteDecider, type QuoteEvent, type QuoteState, type QuoteCommand, type QuoteTerms } from '../domain/quote';
