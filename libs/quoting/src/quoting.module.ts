import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { QuotesController } from './api/quotes.controller';
import { QuoteBook } from './contracts/quote-book';
import { IssueQuoteHandler } from './application/issue-quote/issue-quote.handler';
import { QuoteBookService } from './application/quote-book/quote-book.service';

/**
 * Quoting context: POST /v1/quotes and the quote aggregate that tasks lock (QuoteBook).
 * Imports: the storage module, the catalogue (`Catalogue`), assets (`AssetRegistry`) and
 * voices (`VoiceRegistry`).
 */
@Module({})
export class QuotingModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: QuotingModule,
      imports: deps.imports,
      controllers: [QuotesController],
      providers: [IssueQuoteHandler, QuoteBookService, { provide: QuoteBook, useExisting: QuoteBookService }],
      exports: [QuoteBook],
    };
  }
}
