import { Global, Module } from '@nestjs/common';
import { QuotesController } from './api/quotes.controller';
import { QuoteBook } from './contracts/quote-book';
import { IssueQuoteHandler } from './application/issue-quote/issue-quote.handler';
import { QuoteBookService } from './application/quote-book/quote-book.service';

/** Quoting context: POST /v1/quotes and the quote aggregate that tasks lock (QuoteBook). */
@Global()
@Module({
  controllers: [QuotesController],
  providers: [IssueQuoteHandler, QuoteBookService, { provide: QuoteBook, useExisting: QuoteBookService }],
  exports: [QuoteBook],
})
export class QuotingModule {}
